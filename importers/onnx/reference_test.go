package onnximport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestReferenceOutputs runs every imported fixture in the interpreter on
// its test_data_set_0 inputs and compares with the outputs ONNX (or
// PyTorch) computed: the import must keep the model's meaning, not just
// produce a valid graph.
func TestReferenceOutputs(t *testing.T) {
	fx := testfix.Fixtures(t)
	paths, _ := filepath.Glob(filepath.Join(fx, "onnx-node", "*", "model.onnx"))
	torch, _ := filepath.Glob(filepath.Join(fx, "torch", "*", "model.onnx"))
	paths = append(paths, torch...)
	// ONNX's own Gelu-20 cases (the _expanded ones need CastLike).
	gelu, _ := filepath.Glob(filepath.Join(fx, "onnx-node-1.22", "test_gelu_*[0-9]", "model.onnx"))
	paths = append(paths, gelu...)
	checked := 0
	for _, p := range paths {
		dir := filepath.Dir(p)
		name := filepath.Base(dir)
		if _, refused := unsupportedFixture[name]; refused {
			continue
		}
		t.Run(name, func(t *testing.T) {
			g, err := Read(p, formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			inputs := map[string]*canon.Tensor{}
			for i := 0; ; i++ {
				f := filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i))
				if _, err := os.Stat(f); err != nil {
					break
				}
				x, err := ReadTensorFile(f)
				if err != nil {
					t.Fatal(err)
				}
				inputs[x.Name] = x
			}
			for name := range inputs {
				if !hasInput(g, name) {
					t.Fatalf("test data input %q is not a graph input", name)
				}
			}
			outs, err := interp.Run(g, inputs)
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range g.Outputs {
				want, err := ReadTensorFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("output_%d.pb", i)))
				if err != nil {
					t.Fatal(err)
				}
				compare(t, o.Name, outs[o.Name], want)
			}
			checked++
		})
	}
	if checked == 0 {
		t.Fatalf("no fixture was checked against its reference outputs (%d model.onnx files under %s)", len(paths), fx)
	}
	t.Logf("%d fixtures match their reference outputs", checked)
}

func hasInput(g *canon.Graph, name string) bool {
	for _, v := range g.Inputs {
		if v.Name == name {
			return true
		}
	}
	return false
}

func compare(t *testing.T, name string, got, want *canon.Tensor) {
	t.Helper()
	if got == nil {
		t.Fatalf("output %q missing", name)
	}
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		t.Fatalf("output %q: shape %v, want %v", name, got.Shape, want.Shape)
	}
	a, err1 := got.Float64s()
	b, err2 := want.Float64s()
	if err1 != nil || err2 != nil {
		t.Fatalf("output %q: %v %v", name, err1, err2)
	}
	for i := range a {
		if a[i] == b[i] || (math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			continue
		}
		if d := math.Abs(a[i] - b[i]); d > 1e-4+1e-4*math.Abs(b[i]) {
			t.Fatalf("output %q element %d: %g, want %g", name, i, a[i], b[i])
		}
	}
}
