package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBatchToTorchKeepsGraphs: --to torch writes a module folder for a
// model with nodes (not a weights-only .pt that would drop its
// computation) and says "weights only" for a model that has no nodes.
func TestBatchToTorchKeepsGraphs(t *testing.T) {
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "converted")
	model, err := os.ReadFile(tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in, "net.onnx"), model, 0o644)
	weights := filepath.Join(in, "w.safetensors")
	if code, stdout, stderr := cli(t, "convert", tinyModel, weights); code != 0 {
		t.Fatalf("making a weights-only file: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr := cli(t, "convert", "--batch", in, "--to", "torch", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	for _, f := range []string{"model.py", "weights.pt", "README"} {
		if _, err := os.Stat(filepath.Join(out, "net", f)); err != nil {
			t.Errorf("graph model: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "net.pt")); !os.IsNotExist(err) {
		t.Errorf("graph model also written as a weights-only net.pt")
	}
	if _, err := os.Stat(filepath.Join(out, "w.pt")); err != nil {
		t.Errorf("weights-only model: %v", err)
	}
	var netLine, wLine string
	for _, l := range strings.Split(stdout, "\n") {
		switch {
		case strings.Contains(l, "net.onnx"):
			netLine = l
		case strings.Contains(l, "w.safetensors"):
			wLine = l
		}
	}
	if !strings.Contains(netLine, filepath.Join(out, "net")) || !strings.Contains(netLine, "nodes") {
		t.Errorf("graph line %q", netLine)
	}
	if !strings.Contains(wLine, "weights only") {
		t.Errorf("weights-only line %q does not say so", wLine)
	}
}
