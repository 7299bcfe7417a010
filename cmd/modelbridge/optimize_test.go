package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOptimizeCmd(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "opt.onnx")
	code, stdout, stderr := cli(t, "optimize", tinyModel, out, "--verbose")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"BatchNormalization", "verified", "wrote"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("optimize --verbose output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = cli(t, "check", tinyModel, out, "--random", "--samples", "2")
	if code != 0 {
		t.Fatalf("check original vs optimized: exit %d: %s %s", code, stdout, stderr)
	}

	out2 := filepath.Join(dir, "opt2.onnx")
	code, stdout, stderr = cli(t, "optimize", tinyModel, out2, "--search", "--budget", "5", "--passes", "fold_bn,eliminate_dead", "--json")
	if code != 0 {
		t.Fatalf("optimize --search: exit %d: %s", code, stderr)
	}
	var rep optimizeReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || !rep.Written || !rep.Report.Verified || rep.Report.Search == nil {
		t.Fatalf("optimize --json: %v\n%s", err, stdout)
	}

	code, stdout, _ = cli(t, "optimize", "--list")
	if code != 0 || !strings.Contains(stdout, "fold_bn") || !strings.Contains(stdout, "regroup_conv") {
		t.Errorf("optimize --list: exit %d\n%s", code, stdout)
	}

	// Usage errors write nothing.
	bad := filepath.Join(dir, "bad.onnx")
	if code, _, stderr = cli(t, "optimize", tinyModel, bad, "--passes", "fold_bn,nope"); code != exitUsage || !strings.Contains(stderr, "eliminate_dead") {
		t.Errorf("unknown pass: exit %d: %s", code, stderr)
	}
	if code, _, _ = cli(t, "optimize", tinyModel, tinyModel); code != exitUsage {
		t.Errorf("overwriting the input: exit %d", code)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a failed optimize wrote its output")
	}
}
