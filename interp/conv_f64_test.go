package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestConvFloat64MatchesFloat32: the float64 Conv, with strides,
// dilations, uneven pads, groups and a bias, gives the float32 Conv's
// results on the same (float32-exact) values, to float32's precision.
func TestConvFloat64MatchesFloat32(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	op := &canon.Conv{Group: 2, Strides: []int64{2, 1}, Dilations: []int64{1, 2}, PadsBegin: []int64{1, 0}, PadsEnd: []int64{0, 2}}
	x32 := randTensor(r, "x", 2, 4, 7, 6)
	w32 := randTensor(r, "w", 6, 2, 3, 2)
	b32 := randTensor(r, "b", 6)
	widen := func(t32 *canon.Tensor) *canon.Tensor {
		v, _ := t32.Float64s()
		return f64Matrix(t32.Name, t32.Shape, v...)
	}
	run := func(x, w, b *canon.Tensor) []float64 {
		g := chain(t, []*canon.Tensor{x, w, b}, []*canon.Node{node(op, "y", "x", "w", "b")}, "y")
		out := runChain(t, g, x, w, b)
		v, _ := out["y"].Float64s()
		return v
	}
	want, got := run(x32, w32, b32), run(widen(x32), widen(w32), widen(b32))
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d values in float64, %d in float32", len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-5 {
			t.Fatalf("y[%d] = %v in float64, %v in float32", i, got[i], want[i])
		}
	}
}
