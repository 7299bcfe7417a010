package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// A state dict binds onto the ONNX model torch.onnx exported from it; a
// changed weight in the weights file shows up in the output; mismatches
// fail unless --allow-partial.
func TestConvertWithWeights(t *testing.T) {
	fix := testfix.Fixtures(t)
	dir := filepath.Join(fix, "torch", "tiny_convnet")
	model, sd := filepath.Join(dir, "model.onnx"), filepath.Join(dir, "state_dict.pt")
	tmp := t.TempDir()

	// Make a weights file whose conv1.weight differs from the model's.
	w, _, err := formats.Read(sd, "", formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed := w.Initializer("conv1.weight")
	data := bytes.Clone(changed.Data)
	for i := range data {
		data[i] ^= 0x01
	}
	changed.Data = data
	exp, _ := formats.FindExporter("x.safetensors", "")
	modified := filepath.Join(tmp, "modified.safetensors")
	if err := exp.Write(w, modified, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.Close()

	out := filepath.Join(tmp, "bound.onnx")
	var so, se bytes.Buffer
	if code := execute([]string{"convert", model, "--weights", modified, out}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "replaced 17 initializers") {
		t.Errorf("report: %s", so.String())
	}
	g, _, err := formats.Read(out, "", formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := g.Initializer("conv1.weight"); got == nil || !bytes.Equal(got.Data, data) || got.Layout == "" {
		t.Errorf("conv1.weight not replaced (or lost its layout)")
	}

	// Weights for another model: refused, naming the problems.
	other := filepath.Join(fix, "torch-files", "burn", "mnist.pt")
	so.Reset()
	se.Reset()
	if code := execute([]string{"convert", model, "--weights", other, filepath.Join(tmp, "x.onnx")}, &so, &se); code != 1 {
		t.Fatalf("mismatched weights: exit %d", code)
	}
	for _, want := range []string{"missing", "not in the model", "conv1.weight", "--allow-partial"} {
		if !strings.Contains(se.String(), want) {
			t.Errorf("error lacks %q: %s", want, se.String())
		}
	}
	if code := execute([]string{"convert", model, "--weights", other, "--allow-partial", filepath.Join(tmp, "x.onnx")}, &so, &se); code != 0 {
		t.Fatalf("--allow-partial: exit %d: %s", code, se.String())
	}
}
