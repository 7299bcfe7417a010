package onnximport

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/interp"
)

// Swish with alpha other than 1 computes x·sigmoid(alpha·x) (the suite's
// one case has alpha 1).
func TestSwishAlpha(t *testing.T) {
	g := mustRead(t, graphSpec{
		opset:   24,
		nodes:   []*onnxpb.NodeProto{node("Swish", "n", []string{"x"}, []string{"y"}, aFloat("alpha", 1.702))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 5)},
		outputs: []*onnxpb.ValueInfoProto{unshaped("y")},
	})
	in := []float32{-3, -0.5, 0, 0.75, 4}
	out, err := interp.Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{5}, in)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := out["y"].Float64s()
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range in {
		want := float64(x) / (1 + math.Exp(-1.702*float64(x)))
		if math.Abs(got[i]-want) > 1e-6 {
			t.Errorf("swish(%v) = %v, want %v", x, got[i], want)
		}
	}
}
