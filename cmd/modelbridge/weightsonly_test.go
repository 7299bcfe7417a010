package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A weights-only output says what it drops; a graph output from a
// weights-only input, and a drawing of one, are errors; MXNet's report names
// both files.
func TestWeightsOnlyOutputsSayWhatTheyDrop(t *testing.T) {
	dir := t.TempDir()
	sd := filepath.Join(dir, "sd.pt")
	code, stdout, stderr := cli(t, "convert", tinyModel, sd)
	if code != 0 || !strings.Contains(stdout, "weights only") || !strings.Contains(stdout, "10-node graph not written; use --to torch") {
		t.Fatalf("onnx -> .pt: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "convert", sd, filepath.Join(dir, "g.onnx"))
	if code == 0 || !strings.Contains(stderr, "holds only weights") {
		t.Errorf("state dict -> onnx: exit %d, want an error: %s %s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "g.onnx")); !os.IsNotExist(err) {
		t.Error("a graph file was written from a weights-only input")
	}
	code, stdout, stderr = cli(t, "graph", sd, "-o", filepath.Join(dir, "g.svg"))
	if code == 0 || !strings.Contains(stderr, "nothing to draw") {
		t.Errorf("graph of a state dict: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "convert", tinyModel, filepath.Join(dir, "m-symbol.json"))
	if code != 0 || !strings.Contains(stdout, "m-symbol.json + ") || !strings.Contains(stdout, "m-0000.params") {
		t.Errorf("mxnet report should name both files: exit %d: %s %s", code, stdout, stderr)
	}

	// Batch: the state dict fails instead of becoming a 0-node ONNX file.
	in := t.TempDir()
	data, _ := os.ReadFile(sd)
	os.WriteFile(filepath.Join(in, "sd.pt"), data, 0o644)
	code, stdout, _ = cli(t, "convert", "--batch", in, "--to", "onnx", "--out", filepath.Join(dir, "b"))
	if code != 1 || !strings.Contains(stdout, "holds only weights") {
		t.Errorf("batch state dict -> onnx: exit %d: %s", code, stdout)
	}
	model, _ := os.ReadFile(tinyModel)
	os.Remove(filepath.Join(in, "sd.pt"))
	os.WriteFile(filepath.Join(in, "m.onnx"), model, 0o644)
	code, stdout, _ = cli(t, "convert", "--batch", in, "--to", "safetensors", "--out", filepath.Join(dir, "s"))
	if code != 0 || !strings.Contains(stdout, "10-node graph not written") {
		t.Errorf("batch onnx -> safetensors: exit %d: %s", code, stdout)
	}
}

// Notes that differ only in the names they mention print once with a count
// unless --verbose.
func TestNotesShortUnlessVerbose(t *testing.T) {
	var notes []string
	for i := 0; i < 52; i++ {
		notes = append(notes, "features."+string(rune('a'+i%26))+".num_batches_tracked_"+string(rune('0'+i%10))+" is a training counter and was dropped")
	}
	notes = append(notes, "one other note")
	var short, long strings.Builder
	writeNotes(&short, "m.pt", notes, false)
	writeNotes(&long, "m.pt", notes, true)
	if n := strings.Count(short.String(), "\n"); n != 2 || !strings.Contains(short.String(), "and 51 more like it") {
		t.Errorf("short notes (%d lines):\n%s", n, short.String())
	}
	if n := strings.Count(long.String(), "\n"); n != 53 {
		t.Errorf("--verbose printed %d notes, want 53", n)
	}
}
