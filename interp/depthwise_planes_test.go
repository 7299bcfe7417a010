package interp

import (
	"math"
	"math/rand"
	"testing"
)

// depthwise3x3Ref is the definition in the kernel's order: the bias, then
// each tap inside the plane in row-major order by a fused multiply-add
// (exact in float64 for a float32 product), then the clamp as Go's max and
// min do it.
func depthwise3x3Ref(g *geom3, x, w, bias, y []float32, n, c int, lo, hi float32) {
	H, W, OH, OW := g.in[1], g.in[2], g.out[1], g.out[2]
	for p := range n * c {
		ch := p % c
		for oy := range OH {
			for ox := range OW {
				var acc float32
				if bias != nil {
					acc = bias[ch]
				}
				for ky := range 3 {
					iy := oy*g.s[1] - g.pb[1] + ky
					if iy < 0 || iy >= H {
						continue
					}
					for kx := range 3 {
						ix := ox*g.s[2] - g.pb[2] + kx
						if ix < 0 || ix >= W {
							continue
						}
						acc = float32(math.FMA(float64(w[ch*9+ky*3+kx]), float64(x[p*H*W+iy*W+ix]), float64(acc)))
					}
				}
				y[p*OH*OW+oy*OW+ox] = min(max(acc, lo), hi)
			}
		}
	}
}

func TestDepthwise3x3AVX512MatchesDefinition(t *testing.T) {
	if !useAVX512 {
		t.Skip("skipping: no AVX-512 on this machine (or MODELBRIDGE_NO_AVX512 is set)")
	}
	rng := rand.New(rand.NewSource(3))
	inf := float32(math.Inf(1))
	for trial := range 400 {
		n, c := 1+rng.Intn(2), 1+rng.Intn(5)
		H, W := 1+rng.Intn(40), 1+rng.Intn(70)
		sh, sw := 1+rng.Intn(3), 1+rng.Intn(2)
		pads := []int64{int64(rng.Intn(3)), int64(rng.Intn(3)), int64(rng.Intn(3)), int64(rng.Intn(3))}
		g, err := newGeom3([]int{n, c, H, W}, []int64{3, 3}, []int64{int64(sh), int64(sw)}, []int64{1, 1}, pads[:2], pads[2:])
		if err != nil {
			t.Fatal(err)
		}
		if g.convOut() != nil || g.outSize() == 0 {
			continue
		}
		x := make([]float32, n*c*H*W)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			switch rng.Intn(200) {
			case 0:
				x[i] = float32(math.NaN())
			case 1:
				x[i] = -inf
			case 2:
				x[i] = float32(math.Copysign(0, -1))
			}
		}
		w := make([]float32, c*9)
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		if trial%7 == 0 {
			w[rng.Intn(len(w))] = inf // a tap in the pads must not turn 0·Inf into NaN
		}
		var bias []float32
		if trial%3 != 0 {
			bias = make([]float32, c)
			for i := range bias {
				bias[i] = float32(rng.NormFloat64())
			}
		}
		ep := noClamp
		lo, hi := float32(math.Inf(-1)), inf
		if trial%2 == 0 {
			ep = clampEp{clamp: true, lo: 0, hi: 6}
			lo, hi = 0, 6
		}
		got := make([]float32, n*c*g.outSize())
		want := make([]float32, len(got))
		for i := range got {
			got[i] = 12345 // every output must be written
		}
		if !depthwise3x3AVX512(g, x, w, bias, got, n, c, ep) {
			t.Fatalf("trial %d: the kernel refused %+v", trial, g)
		}
		depthwise3x3Ref(g, x, w, bias, want, n, c, lo, hi)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("trial %d (n=%d c=%d %dx%d stride %d,%d pads %v): output %d is %v, want %v", trial, n, c, H, W, sh, sw, pads, i, got[i], want[i])
			}
		}
	}
}

// TestDepthwise3x3AVX512Refuses: bounds whose signed zeros the vector min
// and max order differently, and residuals, go to the other paths.
func TestDepthwise3x3AVX512Refuses(t *testing.T) {
	g, _ := newGeom3([]int{1, 1, 8, 8}, []int64{3, 3}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1}, []int64{1, 1})
	g.convOut()
	x, w, y := make([]float32, 64), make([]float32, 9), make([]float32, 64)
	negZero := float32(math.Copysign(0, -1))
	for _, ep := range []clampEp{{clamp: true, lo: negZero, hi: 6}, {clamp: true, lo: -1, hi: 0}, {res: make([]float32, 64)}} {
		if depthwise3x3AVX512(g, x, w, nil, y, 1, 1, ep) {
			t.Errorf("the kernel took epilogue %+v", ep)
		}
	}
}
