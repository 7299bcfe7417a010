package mxnetexport_test

import (
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
	"github.com/modelbridge/modelbridge/interp"
)

// TestStackedMatMul exports a MatMul of two 4-D stacks (attention's heads)
// and checks the MXNet checkpoint computes what the canonical graph does.
func TestStackedMatMul(t *testing.T) {
	x := canon.ValueInfo{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3, 4, 5), RankKnown: true}
	w := make([]float32, 2*3*5*6)
	for i := range w {
		w[i] = float32(i%11)*0.1 - 0.4
	}
	g := &canon.Graph{
		Inputs:       []canon.ValueInfo{x},
		Outputs:      []canon.ValueInfo{{Name: "y"}},
		Initializers: []*canon.Tensor{canon.NewFloat32Tensor("w", []int64{2, 3, 5, 6}, w)},
		Nodes:        []*canon.Node{{Name: "mm", Op: &canon.MatMul{}, Inputs: []string{"x", "w"}, Outputs: []string{"y"}}},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "m-symbol.json")
	if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	shapes := map[string][]int64{"x": {2, 3, 4, 5}}
	mx, err := mxnetimport.Read(out, formats.ReadOptions{InputShapes: shapes})
	if err != nil {
		t.Fatal(err)
	}
	xv := make([]float32, 2*3*4*5)
	for i := range xv {
		xv[i] = float32(i%7) - 3
	}
	in := canon.NewFloat32Tensor("x", []int64{2, 3, 4, 5}, xv)
	want, err := interp.Run(g, map[string]*canon.Tensor{"x": in})
	if err != nil {
		t.Fatal(err)
	}
	got, err := interp.Run(mx, map[string]*canon.Tensor{mx.Inputs[0].Name: in})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := want["y"].Float64s()
	b, _ := got[mx.Outputs[0].Name].Float64s()
	if len(a) != len(b) || len(got[mx.Outputs[0].Name].Shape) != 4 {
		t.Fatalf("shape %v, want %v", got[mx.Outputs[0].Name].Shape, want["y"].Shape)
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("element %d: %v, want %v", i, b[i], a[i])
		}
	}
}
