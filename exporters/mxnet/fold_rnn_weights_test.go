package mxnetexport_test

import (
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestRecurrentWeightsFolded: PyTorch's ONNX export of an LSTM computes
// W, R and B with Slice, Concat and Unsqueeze; the MXNet writer computes
// them from the constants, writes no node for that arithmetic, and the
// written model computes the stored outputs.
func TestRecurrentWeightsFolded(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch2", "tiny_lstm")
	g, err := onnximport.Read(filepath.Join(dir, "model.onnx"), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	computed := false
	for _, n := range g.Nodes {
		if _, ok := n.Op.(*canon.LSTM); ok {
			for _, in := range n.Inputs[canon.RecW : canon.RecB+1] {
				if !isInitializer(g, in) {
					computed = true
				}
			}
		}
	}
	if !computed {
		t.Fatal("the fixture's LSTM reads only initializers: nothing to fold")
	}
	out := filepath.Join(t.TempDir(), "m")
	if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	sym, params := mxnetexport.Paths(out, "")
	back, err := mxnetimport.Read(sym, formats.ReadOptions{})
	if err != nil {
		t.Fatalf("reading %s, %s back: %v", sym, params, err)
	}
	defer back.Close()
	for _, n := range back.Nodes {
		if k := n.Op.Kind(); k == "Concat" {
			t.Errorf("the weight arithmetic is written: a %s node", k)
		}
	}
	x, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", "input_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	x.Name = back.Inputs[0].Name
	res, err := interp.Run(back, map[string]*canon.Tensor{x.Name: x})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := res[back.Outputs[0].Name].Float64s()
	w, _ := want.Float64s()
	for i := range w {
		if d := got[i] - w[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("output element %d is %v, PyTorch gives %v", i, got[i], w[i])
		}
	}
}

func isInitializer(g *canon.Graph, name string) bool {
	for _, t := range g.Initializers {
		if t.Name == name {
			return true
		}
	}
	return false
}
