package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Dilated convolutions whose taps mostly read padding run tap by tap:
// outputs agree with the im2col GEMM's within rounding (the skipped taps
// add exact zeros), at strides 1 and 2, uneven pads and two images, and
// ASPP's 3×3 window dilated 12 over a 16² map takes the tap path.
func TestConvByTapsMatchesIm2col(t *testing.T) {
	defer func() { tapsByTap = true }()
	rng := rand.New(rand.NewSource(35))
	for _, c := range []struct {
		n, cin, cout, h, w, k, d, pb, pe, stride int
		byTaps                                   bool
	}{
		{1, 40, 24, 16, 16, 3, 12, 12, 12, 1, true},
		{2, 17, 9, 16, 13, 3, 12, 12, 12, 1, true},
		{1, 8, 5, 11, 19, 3, 8, 9, 7, 2, true},
		{1, 8, 6, 16, 16, 3, 8, 8, 8, 2, true},
		{2, 9, 6, 16, 16, 3, 12, 13, 11, 1, true},
		{1, 6, 7, 9, 9, 5, 4, 8, 8, 1, true},
		{1, 8, 8, 16, 16, 3, 1, 1, 1, 1, false},
	} {
		nb := newNetBuilder("x", int64(c.n), int64(c.cin), int64(c.h), int64(c.w))
		y := nb.node(&canon.Conv{Strides: []int64{int64(c.stride), int64(c.stride)}, Dilations: []int64{int64(c.d), int64(c.d)},
			PadsBegin: []int64{int64(c.pb), int64(c.pb)}, PadsEnd: []int64{int64(c.pe), int64(c.pe)}, Group: 1},
			"x", nb.weight(0.3, int64(c.cout), int64(c.cin), int64(c.k), int64(c.k)), nb.weight(0.1, int64(c.cout)))
		g := nb.finish(t, y)
		in := map[string]*canon.Tensor{"x": randTensor(rng, "x", c.n, c.cin, c.h, c.w)}
		var outs [2][]float64
		for i, on := range []bool{false, true} {
			tapsByTap = on
			prog, err := New(g)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				o, err := prog.Run(in)
				if err != nil {
					t.Fatal(err)
				}
				outs[i], _ = o[y].Float64s()
			}
			ran := prog.steps[0].taps != nil && prog.steps[0].taps.taps != nil
			if on && hasFMA && ran != c.byTaps {
				t.Errorf("%+v: ran tap by tap %v, want %v", c, ran, c.byTaps)
			}
		}
		for i, v := range outs[1] {
			if math.Abs(v-outs[0][i]) > 1e-5*(1+math.Abs(outs[0][i])) {
				t.Fatalf("%+v: y[%d] = %v tap by tap, %v as im2col", c, i, v, outs[0][i])
			}
		}
	}
}
