package interp

import (
	"math"
	"math/rand"
	"testing"
)

// depthwiseDefinition is a depthwise convolution as defined: the bias plus
// every tap inside the plane, in float64, then the residual and the clamp.
// mag gets each output's sum of |bias| and |w·x| (the scale of its rounding).
func depthwiseDefinition(g *geom3, x, w, bias, res []float32, n, c int, lo, hi float64) (y, mag []float64) {
	H, W, OH, OW := g.in[1], g.in[2], g.out[1], g.out[2]
	KH, KW := g.k[1], g.k[2]
	y, mag = make([]float64, n*c*OH*OW), make([]float64, n*c*OH*OW)
	for p := range n * c {
		ch := p % c
		for oy := range OH {
			for ox := range OW {
				var s, m float64
				if bias != nil {
					s, m = float64(bias[ch]), math.Abs(float64(bias[ch]))
				}
				for ky := range KH {
					iy := oy*g.s[1] - g.pb[1] + ky*g.d[1]
					if iy < 0 || iy >= H {
						continue
					}
					for kx := range KW {
						ix := ox*g.s[2] - g.pb[2] + kx*g.d[2]
						if ix < 0 || ix >= W {
							continue
						}
						v := float64(w[ch*KH*KW+ky*KW+kx]) * float64(x[p*H*W+iy*W+ix])
						s, m = s+v, m+math.Abs(v)
					}
				}
				o := p*OH*OW + oy*OW + ox
				if res != nil {
					s += float64(res[o])
					m += math.Abs(float64(res[o]))
				}
				y[o], mag[o] = math.Min(math.Max(s, lo), hi), m
			}
		}
	}
	return y, mag
}

func TestDepthwiseRowsMatchesDefinition(t *testing.T) {
	// The taps path runs where the CPU has FMA; without it (or with the
	// noasm tag) the taps kernel's pure-Go reference is checked the same way.
	defer func(f bool) { hasFMA = f }(hasFMA)
	hasFMA = true
	rng := rand.New(rand.NewSource(5))
	inf := float32(math.Inf(1))
	tested := 0
	for trial := range 300 {
		n, c := 1+rng.Intn(2), 1+rng.Intn(4)
		H, W := 1+rng.Intn(40), 1+rng.Intn(60)
		kh, kw := 1+rng.Intn(8), 1+rng.Intn(8)
		sh, sw := 1+rng.Intn(3), 1+rng.Intn(3)
		dh, dw := 1+rng.Intn(2), 1+rng.Intn(3)
		pads := []int64{int64(rng.Intn(kh)), int64(rng.Intn(kw)), int64(rng.Intn(kh)), int64(rng.Intn(kw))}
		g, err := newGeom3([]int{n, c, H, W}, []int64{int64(kh), int64(kw)}, []int64{int64(sh), int64(sw)}, []int64{int64(dh), int64(dw)}, pads[:2], pads[2:])
		if err != nil {
			t.Fatal(err)
		}
		if g.convOut() != nil || g.outSize() == 0 {
			continue
		}
		x := make([]float32, n*c*H*W)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			switch rng.Intn(300) {
			case 0:
				x[i] = float32(math.NaN())
			case 1:
				x[i] = -inf
			}
		}
		w := make([]float32, c*kh*kw)
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		if !depthwiseRowsFits(g, w) {
			continue
		}
		tested++
		var bias []float32
		if trial%3 != 0 {
			bias = make([]float32, c)
			for i := range bias {
				bias[i] = float32(rng.NormFloat64())
			}
		}
		P := g.outSize()
		ep, lo, hi := noClamp, math.Inf(-1), math.Inf(1)
		var res []float32
		switch trial % 4 {
		case 1:
			ep, lo, hi = clampEp{lo: 0, hi: 6, clamp: true}, 0, 6
		case 2:
			res = make([]float32, n*c*P)
			for i := range res {
				res[i] = float32(rng.NormFloat64())
			}
			ep.res = res
		}
		y := make([]float32, n*c*P)
		convDepthwise(g, x, w, bias, y, n, c, ep)
		want, mag := depthwiseDefinition(g, x, w, bias, res, n, c, lo, hi)
		for i, v := range y {
			wv := want[i]
			switch {
			case math.IsNaN(wv) || math.IsNaN(float64(v)):
				if math.IsNaN(wv) != math.IsNaN(float64(v)) {
					t.Fatalf("trial %d (%v): output %d is %v, want %v", trial, g, i, v, wv)
				}
			case math.IsInf(wv, 0) || math.IsInf(float64(v), 0):
				if float64(v) != wv {
					t.Fatalf("trial %d (%v): output %d is %v, want %v", trial, g, i, v, wv)
				}
			case math.Abs(float64(v)-wv) > 1e-6*(mag[i]+1):
				t.Fatalf("trial %d (%v): output %d is %v, want %v", trial, g, i, v, wv)
			}
		}
	}
	if tested < 100 {
		t.Fatalf("only %d of the windows went through the taps path", tested)
	}
}
