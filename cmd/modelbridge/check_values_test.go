package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestCheckSequenceAndOptionalOutputs checks node-suite models whose
// inputs and outputs are sequences and optionals against their stored
// outputs and against themselves, then against outputs changed in value,
// in length and in presence: each change is reported as a difference.
func TestCheckSequenceAndOptionalOutputs(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	for _, name := range []string{"test_loop13_seq", "test_identity_sequence", "test_if_opt", "test_optional_get_element_sequence"} {
		model, set := filepath.Join(suite, name, "model.onnx"), filepath.Join(suite, name, "test_data_set_0")
		if code, out, errOut := cli(t, "check", model, "--inputs", set); code != 0 || !strings.Contains(out, "  ok") {
			t.Errorf("%s against its stored outputs: exit %d\n%s%s", name, code, out, errOut)
		}
		if code, out, errOut := cli(t, "check", model, model, "--inputs", set); code != 0 || !strings.Contains(out, "  ok") {
			t.Errorf("%s against itself: exit %d\n%s%s", name, code, out, errOut)
		}
	}

	// test_loop13_seq returns the sequence [1], [1 2], ... [1 2 3 4 5].
	model := filepath.Join(suite, "test_loop13_seq", "model.onnx")
	g, err := onnximport.Read(model, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	stored, err := onnxtensor.ReadValueFile(filepath.Join(suite, "test_loop13_seq", "test_data_set_0", "output_0.pb"), g.Outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	seq := stored.(*canon.Sequence)
	changed := *seq
	changed.Tensors = append([]*canon.Tensor{}, seq.Tensors...)
	last := canon.NewFloat32Tensor("", []int64{5}, []float32{1, 2, 3, 4, 5.5})
	changed.Tensors[4] = last
	shorter := *seq
	shorter.Tensors = seq.Tensors[:4]
	for _, c := range []struct {
		name string
		ref  canon.Value
		want []string
	}{
		{"a changed value", &changed, []string{"worst in tensor 4 of the sequence at [4] (a=5.5 b=5)", "DIFFERS (1 of 15 elements)"}},
		{"a shorter sequence", &shorter, []string{"the sequence has 5 tensors, the reference 4", "DIFFERS"}},
	} {
		dir := storedFolder(t, filepath.Join(suite, "test_loop13_seq", "test_data_set_0"), c.ref, g.Outputs[0].Name)
		code, out, errOut := cli(t, "check", model, "--inputs", dir)
		for _, w := range c.want {
			if code != 1 || !strings.Contains(out, w) {
				t.Errorf("%s: exit %d, want 1 and %q in\n%s%s", c.name, code, w, out, errOut)
			}
		}
	}

	// test_if_opt returns an optional holding a sequence.
	model = filepath.Join(suite, "test_if_opt", "model.onnx")
	gi, err := onnximport.Read(model, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer gi.Close()
	o := gi.Outputs[0]
	empty := &canon.OptionalValue{Kind: o.Kind, DType: o.DType}
	dir := storedFolder(t, filepath.Join(suite, "test_if_opt", "test_data_set_0"), empty, o.Name)
	if code, out, errOut := cli(t, "check", model, "--inputs", dir); code != 1 || !strings.Contains(out, "the optional is not empty, the reference empty") {
		t.Errorf("an empty optional against a full one: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := cli(t, "check", model, model, "--inputs", filepath.Join(suite, "test_if_opt", "test_data_set_0"), "--layers"); code != 2 || !strings.Contains(errOut, "--layers compares tensors") {
		t.Errorf("--layers on optional outputs: exit %d, want 2 and a refusal\n%s", code, errOut)
	}
}

// storedFolder copies a test folder's inputs and stores ref as its
// output_0.pb.
func storedFolder(t *testing.T, from string, ref canon.Value, name string) string {
	t.Helper()
	dir := t.TempDir()
	ins, _ := filepath.Glob(filepath.Join(from, "input_*.pb"))
	for _, p := range ins {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := onnxtensor.WriteValueFile(ref, name, filepath.Join(dir, "output_0.pb")); err != nil {
		t.Fatal(err)
	}
	return dir
}
