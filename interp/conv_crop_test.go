package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Convolutions whose dilated windows reach past the input run on the taps
// that reach it: outputs agree with the whole window's within rounding
// (the dead taps add exact zeros), for plain, grouped and depthwise
// convolutions, and ASPP's 3×3 windows dilated 24 and 36 over 16² maps
// become 1×1.
func TestConvCropMatchesWholeWindow(t *testing.T) {
	defer func() { cropTaps = true }()
	rng := rand.New(rand.NewSource(29))
	for _, c := range []struct {
		cin, cout, group, h, w, k, d, pad, stride int
		cropH, cropW                              int
	}{
		{32, 16, 1, 16, 16, 3, 36, 36, 1, 1, 1},
		{32, 16, 1, 16, 16, 3, 24, 24, 1, 1, 1},
		{32, 16, 1, 16, 16, 3, 12, 12, 1, 3, 3},
		{8, 8, 8, 9, 11, 5, 6, 12, 1, 3, 3},
		{12, 6, 3, 7, 20, 3, 8, 8, 2, 1, 3},
		{4, 4, 1, 5, 5, 7, 1, 6, 1, 7, 7},
	} {
		nb := newNetBuilder("x", 1, int64(c.cin), int64(c.h), int64(c.w))
		p := int64(c.pad)
		y := nb.node(&canon.Conv{Strides: []int64{int64(c.stride), int64(c.stride)}, Dilations: []int64{int64(c.d), int64(c.d)},
			PadsBegin: []int64{p, p}, PadsEnd: []int64{p, p}, Group: int64(c.group)},
			"x", nb.weight(0.3, int64(c.cout), int64(c.cin/c.group), int64(c.k), int64(c.k)), nb.weight(0.1, int64(c.cout)))
		g := nb.finish(t, y)
		in := map[string]*canon.Tensor{"x": randTensor(rng, "x", 1, c.cin, c.h, c.w)}
		var outs [2][]float64
		for i, crop := range []bool{false, true} {
			cropTaps = crop
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
			if crop {
				kh, kw := c.k, c.k
				if cr := prog.steps[0].crop; cr != nil {
					kh, kw = cr.g.k[1], cr.g.k[2]
				}
				if kh != c.cropH || kw != c.cropW {
					t.Errorf("%+v: window run %d×%d, want %d×%d", c, kh, kw, c.cropH, c.cropW)
				}
			}
		}
		for i, v := range outs[1] {
			if math.Abs(v-outs[0][i]) > 1e-5*(1+math.Abs(outs[0][i])) {
				t.Fatalf("%+v: y[%d] = %v cropped, %v whole", c, i, v, outs[0][i])
			}
		}
	}
}
