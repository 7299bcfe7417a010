package mxnetimport

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// norm is (v - mean) / sqrt(var + eps) of each value of v.
func norm(v []float64, eps float64) []float64 {
	var m, s float64
	for _, e := range v {
		m += e
	}
	m /= float64(len(v))
	for _, e := range v {
		s += (e - m) * (e - m)
	}
	s = math.Sqrt(s/float64(len(v)) + eps)
	out := make([]float64, len(v))
	for i, e := range v {
		out[i] = (e - m) / s
	}
	return out
}

func TestLayerNormAxes(t *testing.T) {
	x := f32s([]int64{2, 3}, 1, 2, 4, -1, 0, 5)
	params := map[string]*canon.Tensor{"arg:g": f32s([]int64{3}, 1, 2, 3), "arg:b": f32s([]int64{3}, 0, 0, 1)}
	sym := checkpoint(t, oneOp("LayerNorm", `{}`, "g", "b"), params)
	a, b := norm([]float64{1, 2, 4}, 1e-5), norm([]float64{-1, 0, 5}, 1e-5)
	expect(t, run(t, sym, x), []int64{2, 3}, a[0], 2*a[1], 3*a[2]+1, b[0], 2*b[1], 3*b[2]+1)
	// axis 0 normalizes each column, gamma along axis 0.
	params = map[string]*canon.Tensor{"arg:g": f32s([]int64{2}, 1, 2), "arg:b": f32s([]int64{2}, 0, 1)}
	sym = checkpoint(t, oneOp("LayerNorm", `{"axis":"0","eps":"0.001"}`, "g", "b"), params)
	c0, c1, c2 := norm([]float64{1, -1}, 1e-3), norm([]float64{2, 0}, 1e-3), norm([]float64{4, 5}, 1e-3)
	expect(t, run(t, sym, x), []int64{2, 3}, c0[0], c1[0], c2[0], 2*c0[1]+1, 2*c1[1]+1, 2*c2[1]+1)
}

func TestGroupAndInstanceNorm(t *testing.T) {
	x := f32s([]int64{1, 4, 1, 2}, 1, 3, 2, 6, -1, 1, 0, 4)
	g01, g23 := norm([]float64{1, 3, 2, 6}, 1e-5), norm([]float64{-1, 1, 0, 4}, 1e-5)
	// MXNet 1.x: gamma and beta per group.
	sym := checkpoint(t, oneOp("GroupNorm", `{"num_groups":"2"}`, "g", "b"), map[string]*canon.Tensor{
		"arg:g": f32s([]int64{2}, 2, 3), "arg:b": f32s([]int64{2}, 0, 1)})
	expect(t, run(t, sym, x), []int64{1, 4, 1, 2}, 2*g01[0], 2*g01[1], 2*g01[2], 2*g01[3], 3*g23[0]+1, 3*g23[1]+1, 3*g23[2]+1, 3*g23[3]+1)
	// MXNet 2: per channel.
	sym = checkpoint(t, oneOp("GroupNorm", `{"num_groups":"2"}`, "g", "b"), map[string]*canon.Tensor{
		"arg:g": f32s([]int64{4}, 1, 2, 1, 1), "arg:b": f32s([]int64{4}, 0, 0, 0, 5)})
	expect(t, run(t, sym, x), []int64{1, 4, 1, 2}, g01[0], g01[1], 2*g01[2], 2*g01[3], g23[0], g23[1], g23[2]+5, g23[3]+5)
	// InstanceNorm's eps defaults to 1e-3.
	sym = checkpoint(t, oneOp("InstanceNorm", `{}`, "g", "b"), map[string]*canon.Tensor{
		"arg:g": f32s([]int64{4}, 1, 1, 1, 2), "arg:b": f32s([]int64{4}, 0, 0, 0, 1)})
	i0, i3 := norm([]float64{1, 3}, 1e-3), norm([]float64{0, 4}, 1e-3)
	got := run(t, sym, x)
	expect(t, got, []int64{1, 4, 1, 2}, i0[0], i0[1])
	v, _ := got.Float64s()
	if math.Abs(v[6]-(2*i3[0]+1)) > 1e-5 || math.Abs(v[7]-(2*i3[1]+1)) > 1e-5 {
		t.Errorf("channel 3 is %v, want %v", v[6:], []float64{2*i3[0] + 1, 2*i3[1] + 1})
	}
}

func TestL2NormalizationModes(t *testing.T) {
	x := f32s([]int64{1, 2, 1, 2}, 3, 0, 4, 2)
	r := func(v ...float64) float64 {
		s := 1e-10
		for _, e := range v {
			s += e * e
		}
		return math.Sqrt(s)
	}
	inst := checkpoint(t, oneOp("L2Normalization", `{}`), nil)
	n := r(3, 0, 4, 2)
	expect(t, run(t, inst, x), []int64{1, 2, 1, 2}, 3/n, 0, 4/n, 2/n)
	ch := checkpoint(t, oneOp("L2Normalization", `{"mode":"channel"}`), nil)
	expect(t, run(t, ch, x), []int64{1, 2, 1, 2}, 3/r(3, 4), 0, 4/r(3, 4), 1)
	sp := checkpoint(t, oneOp("L2Normalization", `{"mode":"spatial","eps":"0.5"}`), nil)
	a, b := math.Sqrt(9+0.5), math.Sqrt(20+0.5)
	expect(t, run(t, sp, x), []int64{1, 2, 1, 2}, 3/a, 0, 4/b, 2/b)
}

func TestLpAndSamePooling(t *testing.T) {
	x := f32s([]int64{1, 1, 5}, 3, -4, 1, 2, -2)
	lp := checkpoint(t, oneOp("Pooling", `{"kernel":"(2,)","stride":"(2,)","pool_type":"lp","p_value":"2"}`), nil)
	expect(t, run(t, lp, x), []int64{1, 1, 2}, 5, math.Sqrt(5))
	same := checkpoint(t, oneOp("Pooling", `{"kernel":"(3,)","stride":"(2,)","pool_type":"max","pooling_convention":"same"}`), nil)
	// ceil(5/2) = 3 windows: [0,3), [2,5), [4,5) clipped.
	expect(t, run(t, same, x), []int64{1, 1, 3}, 3, 2, -2)
	odd := checkpoint(t, oneOp("Pooling", `{"kernel":"(2,)","pool_type":"lp","p_value":"1"}`), nil)
	if _, err := Read(odd, readShapes(x)); err == nil {
		t.Error("lp pooling with p_value=1 was read")
	}
}

func readShapes(x *canon.Tensor) formats.ReadOptions {
	return formats.ReadOptions{InputShapes: map[string][]int64{"data": x.Shape}}
}
