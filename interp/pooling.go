package interp

import (
	"fmt"
	"math"
	"sort"

	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

type poolAttrs struct {
	kernel, strides, dilations, padsBegin, padsEnd []int64
	ceil, max, includePad, colMajor                bool
	// lp, when > 0, makes the pool the lp-norm of each window.
	lp int64
}

func runPool(x *exec, a *poolAttrs) error {
	orig := x.in(0)
	if len(orig.shape) < 3 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", orig.shape)
	}
	if orig.isF64() {
		return runPoolF64(x, orig, a)
	}
	if !orig.isFloat() && !a.max || a.lp > 0 && !orig.isFloat() {
		return fmt.Errorf("X is %s, want a floating-point tensor", orig.dt)
	}
	g, err := poolGeom(orig.shape, a)
	if err != nil {
		return err
	}
	in := x.asFloat(orig)
	planes := in.shape[0] * in.shape[1]
	y := x.newF(g.outShape(in.shape, in.shape[0], in.shape[1]))
	P, inP, K := g.outSize(), g.inSize(), g.kernelSize()
	vector := pool2DAVX512Planes(g, a)
	parallelFor(planes, P*K, func(lo, hi int) {
		if vector != nil {
			vector(in.f[lo*inP:hi*inP], y.f[lo*P:hi*P], hi-lo)
			return
		}
		for p := lo; p < hi; p++ {
			poolPlane(g, a, in.f[p*inP:(p+1)*inP], y.f[p*P:(p+1)*P])
		}
	})
	if a.max && x.nout() > 1 {
		x.set(1, poolIndices(x, g, in, y.shape, a.colMajor))
	}
	if in != orig {
		x.p.pool.put(in)
		y = x.backToInt(y, orig.dt)
	}
	x.set(0, y)
	return nil
}

// poolGeom is the window geometry of a pool on an input of shape xshape,
// output size included.
func poolGeom(xshape []int, a *poolAttrs) (*geom3, error) {
	g, err := newGeom3(xshape, a.kernel, a.strides, a.dilations, a.padsBegin, a.padsEnd)
	if err != nil {
		return nil, err
	}
	for i := range 3 {
		ext := (g.k[i]-1)*g.d[i] + 1
		span := g.in[i] + g.pb[i] + g.pe[i] - ext
		if span < 0 {
			return nil, fmt.Errorf("window extent %d is larger than the padded input %d", ext, g.in[i]+g.pb[i]+g.pe[i])
		}
		if a.ceil {
			g.out[i] = (span+g.s[i]-1)/g.s[i] + 1
			// ONNX/PyTorch rule: the last window must start inside the
			// input or its left padding.
			if (g.out[i]-1)*g.s[i] >= g.in[i]+g.pb[i] {
				g.out[i]--
			}
		} else {
			g.out[i] = span/g.s[i] + 1
		}
	}
	return g, nil
}

func poolPlane(g *geom3, a *poolAttrs, src, dst []float32) {
	if a.lp == 0 && g.in[0] == 1 && g.k[0] == 1 && g.out[0] == 1 && g.pb[0] == 0 {
		pool2D(g, a, src, dst)
		return
	}
	i := 0
	for oz := 0; oz < g.out[0]; oz++ {
		for oy := 0; oy < g.out[1]; oy++ {
			for ox := 0; ox < g.out[2]; ox++ {
				dst[i] = poolPoint(g, a, src, oz, oy, ox)
				i++
			}
		}
	}
}

// poolPoint is one output of a pool: its window's taps in order, those
// outside the input skipped; a NaN tap wins a max (the last one).
func poolPoint[T float32 | float64](g *geom3, a *poolAttrs, src []T, oz, oy, ox int) T {
	D, H, W := g.in[0], g.in[1], g.in[2]
	z0, y0, x0 := oz*g.s[0]-g.pb[0], oy*g.s[1]-g.pb[1], ox*g.s[2]-g.pb[2]
	m := T(math.Inf(-1))
	var sum T
	var lpSum float64
	n, padded := 0, 0
	for kz := 0; kz < g.k[0]; kz++ {
		iz := z0 + kz*g.d[0]
		zin := iz >= 0 && iz < D
		zpad := iz < D+g.pe[0]
		for ky := 0; ky < g.k[1]; ky++ {
			iy := y0 + ky*g.d[1]
			yin := zin && iy >= 0 && iy < H
			ypad := zpad && iy < H+g.pe[1]
			for kx := 0; kx < g.k[2]; kx++ {
				ix := x0 + kx*g.d[2]
				if ypad && ix < W+g.pe[2] {
					padded++ // inside input or explicit pads, not ceil overhang
				}
				if !yin || ix < 0 || ix >= W {
					continue
				}
				v := src[(iz*H+iy)*W+ix]
				if v > m || v != v {
					m = v
				}
				sum += v
				if a.lp > 0 {
					lpSum += math.Pow(math.Abs(float64(v)), float64(a.lp))
				}
				n++
			}
		}
	}
	switch {
	case a.lp > 0:
		return T(math.Pow(lpSum, 1/float64(a.lp)))
	case a.max:
		return m
	}
	return average(sum, n, padded, a.includePad)
}

// average is an average pool's output from its window's sum, its count of
// taps inside the input and its count inside the input or explicit pads.
func average[T float32 | float64](sum T, n, padded int, includePad bool) T {
	switch {
	case includePad:
		return sum / T(padded)
	case n == 0:
		return 0
	}
	return sum / T(n)
}

// pool2D is poolPlane for 2-D max and average pools. Each output row takes
// its windows' taps one at a time, in window order, across its interior
// columns (those whose windows lie inside the input horizontally) with a
// vector step, so every output sees the same taps in the same order as in
// poolPoint and comes out the same; the edge columns go one by one.
func pool2D(g *geom3, a *poolAttrs, src, dst []float32) {
	H, W := g.in[1], g.in[2]
	OH, OW := g.out[1], g.out[2]
	kh, kw, sw := g.k[1], g.k[2], g.s[2]
	px := g.pb[2]
	lo := min((px+sw-1)/sw, OW)
	hi := lo
	if last := W - 1 - (kw-1)*g.d[2] + px; last >= 0 {
		hi = max(lo, min(OW, last/sw+1))
	}
	start := float32(0)
	if a.max {
		start = float32(math.Inf(-1))
	}
	for oy := 0; oy < OH; oy++ {
		out := dst[oy*OW : (oy+1)*OW]
		inner := out[lo:hi]
		for i := range inner {
			inner[i] = start
		}
		y0 := oy*g.s[1] - g.pb[1]
		n, padded := 0, 0 // taps of an interior window
		for ky := 0; ky < kh; ky++ {
			iy := y0 + ky*g.d[1]
			if iy < H+g.pe[1] {
				padded += kw
			}
			if iy < 0 || iy >= H || len(inner) == 0 {
				continue
			}
			n += kw
			// The rest of the plane from row iy: vector loads may reach
			// past the row's end, into lanes they discard.
			rest := src[iy*W:]
			for kx := 0; kx < kw; kx++ {
				poolStep(inner, rest[lo*sw-px+kx*g.d[2]:], sw, a.max)
			}
		}
		if !a.max {
			for i, v := range inner {
				inner[i] = average(v, n, padded, a.includePad)
			}
		}
		for ox := 0; ox < lo; ox++ {
			out[ox] = poolPoint(g, a, src, 0, oy, ox)
		}
		for ox := hi; ox < OW; ox++ {
			out[ox] = poolPoint(g, a, src, 0, oy, ox)
		}
	}
}

func runGlobalPool(x *exec, isMax bool) error {
	in := x.in(0)
	if in.isF64() {
		return runGlobalPoolF64(x, in, isMax)
	}
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if len(in.shape) < 2 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", in.shape)
	}
	shape := append([]int{}, in.shape...)
	for i := 2; i < len(shape); i++ {
		shape[i] = 1
	}
	planes := in.shape[0] * in.shape[1]
	inner := numel(in.shape[2:])
	y := x.newF(shape)
	// Two operations an element (a conversion to float64 and an add),
	// and the planes were mostly written by the cores that split the
	// step before: 1152 planes of 7×7 take 24 µs on one core of two, 11
	// split.
	parallelFor(planes, 2*inner, func(p0, p1 int) {
		p := p0
		if !isMax && useAVX512 {
			for ; p+8 <= p1; p += 8 {
				meanPlanes8(in.f[p*inner:(p+8)*inner], inner, (*[8]float32)(y.f[p:p+8]))
			}
		}
		if !isMax {
			for ; p+4 <= p1; p += 4 {
				meanPlanes4(in.f[p*inner:(p+4)*inner], inner, (*[4]float32)(y.f[p:p+4]))
			}
		}
		for ; p < p1; p++ {
			y.f[p] = globalPoolPlane(in.f[p*inner:(p+1)*inner], isMax)
		}
	})
	x.set(0, y)
	return nil
}

// globalPoolPlane is the max or the mean (summed in float64) of a plane.
func globalPoolPlane(src []float32, isMax bool) float32 {
	if isMax {
		m := float32(math.Inf(-1))
		for _, v := range src {
			m = max(m, v)
		}
		return m
	}
	var s float64
	for _, v := range src {
		s += float64(v)
	}
	return float32(s / float64(len(src)))
}

// meanPlanes4 is globalPoolPlane's mean of four consecutive planes of
// size inner in src, each summed in the same order, the four sums
// interleaved so that they do not wait on each other's additions.
func meanPlanes4(src []float32, inner int, dst *[4]float32) {
	a := src[:inner]
	b, c, d := src[inner:2*inner], src[2*inner:3*inner], src[3*inner:4*inner]
	var sa, sb, sc, sd float64
	for i, v := range a {
		sa += float64(v)
		sb += float64(b[i])
		sc += float64(c[i])
		sd += float64(d[i])
	}
	n := float64(inner)
	*dst = [4]float32{float32(sa / n), float32(sb / n), float32(sc / n), float32(sd / n)}
}

// meanPlanes8 is globalPoolPlane's mean of eight consecutive planes of
// size inner in src, each summed in the same order (vec.SumPlanes8: a
// float64 lane a plane with AVX-512).
func meanPlanes8(src []float32, inner int, dst *[8]float32) {
	var s [8]float64
	vec.SumPlanes8(&s, src, inner, inner)
	n := float64(inner)
	for j, v := range s {
		dst[j] = float32(v / n)
	}
}

// sortedAxes normalizes, sorts and checks for duplicates.
func sortedAxes(axes []int64, rank int) ([]int, error) {
	out := make([]int, len(axes))
	for i, a := range axes {
		n, err := normAxis(a, rank)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	sort.Ints(out)
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			return nil, fmt.Errorf("axes %v repeat axis %d", axes, out[i])
		}
	}
	return out, nil
}
