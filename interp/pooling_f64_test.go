package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestPoolsFloat64MatchFloat32: MaxPool, AveragePool (with and without
// the pads counted) and LpPool, with ceil mode, dilations and uneven pads,
// give in float64 the float32 kernels' results on the same values.
func TestPoolsFloat64MatchFloat32(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	win := func() ([]int64, []int64, []int64, []int64) {
		return []int64{3, 2}, []int64{2, 2}, []int64{1, 0}, []int64{1, 1}
	}
	k, s, pb, pe := win()
	one := []int64{1, 1}
	ops := []canon.Op{
		&canon.MaxPool{Kernel: k, Strides: s, PadsBegin: pb, PadsEnd: pe, Dilations: []int64{1, 2}, CeilMode: true},
		&canon.AveragePool{Kernel: k, Strides: s, PadsBegin: pb, PadsEnd: pe, Dilations: one, CeilMode: true},
		&canon.AveragePool{Kernel: k, Strides: s, PadsBegin: pb, PadsEnd: pe, Dilations: one, CountIncludePad: true},
		&canon.LpPool{Kernel: k, Strides: s, PadsBegin: pb, PadsEnd: pe, Dilations: one, P: 3},
	}
	x32 := randTensor(r, "x", 2, 3, 7, 6)
	v, _ := x32.Float64s()
	x64 := f64Matrix("x", x32.Shape, v...)
	for _, op := range ops {
		run := func(x *canon.Tensor) []float64 {
			g := chain(t, []*canon.Tensor{x}, []*canon.Node{node(op, "y", "x")}, "y")
			out, _ := runChain(t, g, x)["y"].Float64s()
			return out
		}
		want, got := run(x32), run(x64)
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%s: %d values in float64, %d in float32", op.Kind(), len(got), len(want))
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-5 {
				t.Errorf("%s: y[%d] = %v in float64, %v in float32", op.Kind(), i, got[i], want[i])
				break
			}
		}
	}
}
