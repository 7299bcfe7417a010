package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --verbose prints the per-node tables and never an empty "applied:".
func TestOptimizeVerboseReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "opt.onnx")
	code, stdout, stderr := cli(t, "optimize", tinyModel, out, "--verbose", "--search", "--budget", "3")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"applied: ", "before: ", "after: ", " node ", " launches ", " total "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "applied: \n") {
		t.Errorf("search line ends in an empty \"applied:\":\n%s", stdout)
	}
}
