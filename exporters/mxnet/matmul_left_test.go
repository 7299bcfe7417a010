package mxnetexport_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
	"github.com/modelbridge/modelbridge/interp"
)

// TestMatrixTimesStack exports a constant matrix times a 4-D stack (the
// row weights of adaptive pooling read from TorchScript) and checks the
// MXNet checkpoint computes what the canonical graph does.
func TestMatrixTimesStack(t *testing.T) {
	for _, shape := range [][]int64{{2, 3, 4, 5}, {3, 4, 2}} {
		r := len(shape)
		x := canon.ValueInfo{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(shape...), RankKnown: true}
		w := make([]float32, 6*shape[r-2])
		for i := range w {
			w[i] = float32(i%11)*0.1 - 0.4
		}
		g := &canon.Graph{
			Inputs:       []canon.ValueInfo{x},
			Outputs:      []canon.ValueInfo{{Name: "y"}},
			Initializers: []*canon.Tensor{canon.NewFloat32Tensor("w", []int64{6, shape[r-2]}, w)},
			Nodes:        []*canon.Node{{Name: "mm", Op: &canon.MatMul{}, Inputs: []string{"w", "x"}, Outputs: []string{"y"}}},
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "m-symbol.json")
		if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		mx, err := mxnetimport.Read(out, formats.ReadOptions{InputShapes: map[string][]int64{"x": shape}})
		if err != nil {
			t.Fatal(err)
		}
		xv := make([]float32, canon.NumElements(shape))
		for i := range xv {
			xv[i] = float32(i%7) - 3
		}
		in := canon.NewFloat32Tensor("x", shape, xv)
		want, err := interp.Run(g, map[string]*canon.Tensor{"x": in})
		if err != nil {
			t.Fatal(err)
		}
		got, err := interp.Run(mx, map[string]*canon.Tensor{mx.Inputs[0].Name: in})
		if err != nil {
			t.Fatal(err)
		}
		y := got[mx.Outputs[0].Name]
		if !slices.Equal(y.Shape, want["y"].Shape) {
			t.Fatalf("shape %v, want %v", y.Shape, want["y"].Shape)
		}
		a, _ := want["y"].Float64s()
		b, _ := y.Float64s()
		for i := range a {
			if d := a[i] - b[i]; d > 1e-5 || d < -1e-5 {
				t.Fatalf("%v: element %d: %v, want %v", shape, i, b[i], a[i])
			}
		}
	}
}
