package onnxexport

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestValueTypesAskTheOp: without inference's types the exporter types
// outputs by the op's own dtype rule, not by copying input 0's dtype: an
// ArgMax of float data is int64, a comparison bool.
func TestValueTypesAskTheOp(t *testing.T) {
	g := &canon.Graph{
		Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32}},
		Nodes: []*canon.Node{
			{Name: "a", Op: &canon.ArgReduce{}, Inputs: []string{"x"}, Outputs: []string{"i"}},
			{Name: "c", Op: &canon.Compare{Fn: canon.CmpLess}, Inputs: []string{"x", "x"}, Outputs: []string{"b"}},
			{Name: "r", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"x"}, Outputs: []string{"y"}},
		},
	}
	types := valueTypes(g, nil)
	for name, want := range map[string]canon.DType{"i": canon.Int64, "b": canon.Bool, "y": canon.Float32} {
		if got := types.all.Get(name); got.DType != want {
			t.Errorf("%s: %s, want %s", name, got.DType, want)
		}
	}
}
