package onnximport

import (
	"strings"
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

// TestNormBadAttributes: nonsense attributes are refused naming the node.
func TestNormBadAttributes(t *testing.T) {
	one := func(opset int64, n *onnxpb.NodeProto, inits ...*onnxpb.TensorProto) *onnxpb.ModelProto {
		return graphSpec{opset: opset, nodes: []*onnxpb.NodeProto{n}, inputs: []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 4, 3)},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 4, 3)}, inits: inits}.model()
	}
	s4 := f32Tensor("s", []int64{4}, 1, 1, 1, 1)
	b4 := f32Tensor("b", []int64{4}, 0, 0, 0, 0)
	wantErr(t, one(17, node("LayerNormalization", "ln", []string{"x", "s"}, []string{"y"}, aInt("axis", 3)), f32Tensor("s", []int64{3}, 1, 1, 1)),
		`node "ln"`, "axis 3")
	wantErr(t, one(21, node("GroupNormalization", "gn", []string{"x", "s", "b"}, []string{"y"}, aInt("num_groups", 3)), s4, b4),
		`node "gn"`, "multiple of NumGroups 3")
	wantErr(t, one(21, node("GroupNormalization", "gn0", []string{"x", "s", "b"}, []string{"y"}), s4, b4), `node "gn0"`, "num_groups")
	wantErr(t, one(13, node("LpNormalization", "lp", []string{"x"}, []string{"y"}, aInt("p", 3))), `node "lp"`, "p is 3")
	wantErr(t, one(13, node("InstanceNormalization", "in", []string{"x", "s", "b"}, []string{"y"}),
		f32Tensor("s", []int64{3}, 1, 1, 1), f32Tensor("b", []int64{3}, 0, 0, 0)), `node "in"`, "channels")
	wantErr(t, one(13, node("MeanVarianceNormalization", "mvn", []string{"x"}, []string{"y"}, aInts("axes", 0, 5))), `node "mvn"`, "axis 5")
}

// TestMaxUnpoolBadIndices: an index outside the output is a run-time error
// naming the node, not a crash.
func TestMaxUnpoolBadIndices(t *testing.T) {
	s := graphSpec{opset: 11,
		nodes:   []*onnxpb.NodeProto{node("MaxUnpool", "up", []string{"x", "i"}, []string{"y"}, aInts("kernel_shape", 2), aInts("strides", 2))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 1, 2), vinfo("i", tInt64, 1, 1, 2)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 1, 4)}}
	g, err := Read(write(t, s.model()), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	_, err = interp.Run(g, map[string]*canon.Tensor{
		"x": canon.NewFloat32Tensor("x", []int64{1, 1, 2}, []float32{1, 2}),
		"i": canon.NewInt64Tensor("i", []int64{1, 1, 2}, []int64{0, 9}),
	})
	if err == nil || !strings.Contains(err.Error(), "up") || !strings.Contains(err.Error(), "index 9") {
		t.Errorf("error %v, want one naming node up and index 9", err)
	}
}
