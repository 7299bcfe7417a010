package interp

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// A one-element output of two broadcast operands (a scalar and a [1]
// tensor) is a row where neither operand advances.
func TestBinaryScalarRow(t *testing.T) {
	for _, fn := range []canon.BinaryFn{canon.Add, canon.Sub, canon.Mul, canon.Div} {
		g := &canon.Graph{
			Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1), RankKnown: true}},
			Outputs:      []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
			Initializers: []*canon.Tensor{canon.NewFloat32Tensor("one", []int64{}, []float32{1})},
			Nodes:        []*canon.Node{{Name: "op", Op: &canon.Binary{Fn: fn}, Inputs: []string{"one", "x"}, Outputs: []string{"y"}}},
		}
		outs, err := Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{1}, []float32{4})})
		if err != nil {
			t.Fatalf("%v: %v", fn, err)
		}
		got, _ := outs["y"].Float64s()
		want := map[canon.BinaryFn]float64{canon.Add: 5, canon.Sub: -3, canon.Mul: 4, canon.Div: 0.25}[fn]
		if len(got) != 1 || got[0] != want {
			t.Errorf("1 %v [4] = %v, want [%v]", fn, got, want)
		}
	}
}
