package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// optimize prints an onnx-simplifier-style table by default: each op's
// count before and after, nodes, params, file size and modelled latency.
func TestOptimizePrintsBeforeAfterTable(t *testing.T) {
	code, stdout, stderr := cli(t, "optimize", tinyModel, filepath.Join(t.TempDir(), "o.onnx"))
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	for _, re := range []string{
		`(?m)^op +before +after`,
		`(?m)^BatchNormalization +1 +0`, // folded into the conv
		`(?m)^Conv +2 +2`,
		`(?m)^nodes +10 +9`,
		`(?m)^params +10934 +\d+`,
		`(?m)^file size +44\.4 KiB +\d`,
		`(?m)^modelled latency +0\.\d+ ms +0\.\d+ ms`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("table lacks %s:\n%s", re, stdout)
		}
	}
	if !strings.Contains(stdout, "verified") {
		t.Errorf("the summary after the table is missing:\n%s", stdout)
	}
}
