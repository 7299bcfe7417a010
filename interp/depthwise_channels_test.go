package interp

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// The channels path gives the taps path's bits (depthwiseRows: the same
// sums in the same order): windows up to 8×8, strides and dilations up to
// 3 and 2, uneven pads, two images, 16 to 48 channels, with and without a
// bias, with a clamp or a residual, NaN and infinities among the inputs.
func TestDepthwiseChannelsMatchesRows(t *testing.T) {
	if !useAVX512 {
		t.Skip("skipping: the channels path needs AVX-512")
	}
	rng := rand.New(rand.NewSource(15))
	inf := float32(math.Inf(1))
	tested := 0
	for trial := range 200 {
		n, c := 1+rng.Intn(2), 16*(1+rng.Intn(3))
		H, W := 1+rng.Intn(20), 1+rng.Intn(20)
		kh, kw := 1+rng.Intn(8), 1+rng.Intn(8)
		sh, sw := 1+rng.Intn(3), 1+rng.Intn(3)
		dh, dw := 1+rng.Intn(2), 1+rng.Intn(2)
		pads := []int64{int64(rng.Intn(kh)), int64(rng.Intn(kw)), int64(rng.Intn(kh)), int64(rng.Intn(kw))}
		g, err := newGeom3([]int{n, c, H, W}, []int64{int64(kh), int64(kw)}, []int64{int64(sh), int64(sw)}, []int64{int64(dh), int64(dw)}, pads[:2], pads[2:])
		if err != nil {
			t.Fatal(err)
		}
		if g.convOut() != nil || g.outSize() == 0 || !depthwiseChannelsFits(g, c, true) {
			continue
		}
		tested++
		rnd := func(k int) []float32 {
			v := make([]float32, k)
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
			return v
		}
		x, w := rnd(n*c*H*W), rnd(c*kh*kw)
		x[rng.Intn(len(x))] = float32(math.NaN())
		x[rng.Intn(len(x))] = -inf
		var bias []float32
		if trial%3 != 0 {
			bias = rnd(c)
		}
		P := g.outSize()
		ep := noClamp
		switch trial % 4 {
		case 1:
			ep = clampEp{lo: 0, hi: 6, clamp: true}
		case 2:
			ep.res = rnd(n * c * P)
		case 3:
			ep = clampEp{lo: -1, hi: 1, clamp: true, res: rnd(n * c * P)}
		}
		got, want := make([]float32, n*c*P), make([]float32, n*c*P)
		depthwiseChannels(g, x, w, bias, got, n, c, ep)
		depthwiseRows(g, x, w, bias, want, n, c, ep)
		if !slices.EqualFunc(got, want, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b) }) {
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("trial %d (%+v): output %d is %v, the taps path gives %v", trial, *g, i, got[i], want[i])
				}
			}
		}
	}
	if tested < 50 {
		t.Fatalf("only %d windows went through the channels path", tested)
	}
}
