package onnximport

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/interp"
)

// groupNormModel is x(2,4,3) -> GroupNormalization(2 groups) -> y at the
// given opset, scale and bias either initializers or graph inputs.
func groupNormModel(opset int64, scale, bias []float32, asInputs bool) graphSpec {
	n := int64(len(scale))
	s := graphSpec{
		opset:   opset,
		nodes:   []*onnxpb.NodeProto{node("GroupNormalization", "gn", []string{"x", "s", "b"}, []string{"y"}, aInt("num_groups", 2), aFloat("epsilon", 1e-3))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 4, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 4, 3)},
	}
	if asInputs {
		s.inputs = append(s.inputs, vinfo("s", tFloat, n), vinfo("b", tFloat, n))
	} else {
		s.inits = []*onnxpb.TensorProto{f32Tensor("s", []int64{n}, scale...), f32Tensor("b", []int64{n}, bias...)}
	}
	return s
}

// TestGroupNorm18PerGroup: GroupNormalization-18's per-group scale and bias
// give the same result as version 21 with each value repeated over its
// group's channels, constant or fed at run time.
func TestGroupNorm18PerGroup(t *testing.T) {
	x := make([]float32, 24)
	for i := range x {
		x[i] = float32((i*7)%11) - 4
	}
	feed := func(g *canon.Graph, extra map[string][]float32) map[string]*canon.Tensor {
		m := map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{2, 4, 3}, x)}
		for k, v := range extra {
			m[k] = canon.NewFloat32Tensor(k, []int64{int64(len(v))}, v)
		}
		return m
	}
	runModel := func(s graphSpec, extra map[string][]float32) []float64 {
		t.Helper()
		g, err := Read(write(t, s.model()), formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		out, err := interp.Run(g, feed(g, extra))
		if err != nil {
			t.Fatal(err)
		}
		v, _ := out["y"].Float64s()
		return v
	}
	want := runModel(groupNormModel(21, []float32{2, 2, -1, -1}, []float32{0.5, 0.5, 3, 3}, false), nil)
	for _, asInputs := range []bool{false, true} {
		var extra map[string][]float32
		if asInputs {
			extra = map[string][]float32{"s": {2, -1}, "b": {0.5, 3}}
		}
		got := runModel(groupNormModel(18, []float32{2, -1}, []float32{0.5, 3}, asInputs), extra)
		for i := range want {
			if d := got[i] - want[i]; d > 1e-5 || d < -1e-5 {
				t.Fatalf("inputs %v: element %d is %g, version 21 gives %g", asInputs, i, got[i], want[i])
			}
		}
	}
}
