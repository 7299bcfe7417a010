package interp

import (
	"math"

	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// pool2DAVX512Planes returns a function that computes whole planes of a
// 2-D max or average pool with windows up to 3 wide, unit dilation and
// horizontal stride 1 or 2 straight from the input planes, 16 outputs a
// vector, two output rows a pass where their windows share rows: masked
// loads and merge-masked maxima and sums leave the taps outside the input
// out, so each output sees its taps inside the input in window order, as
// in poolPoint, and comes out the same. It returns nil where it does not
// serve: no AVX-512 or another geometry.
func pool2DAVX512Planes(g *geom3, a *poolAttrs) func(src, dst []float32, planes int) {
	if !useAVX512 || a.lp > 0 || g.in[0] != 1 || g.k[0] != 1 || g.out[0] != 1 || g.pb[0] != 0 ||
		g.k[2] > 3 || g.d[1] != 1 || g.d[2] != 1 || (g.s[2] != 1 && g.s[2] != 2) || g.outSize() == 0 {
		return nil
	}
	OH, OW, kw := g.out[1], g.out[2], g.k[2]
	masks := vec.DW3Masks(OW, g.in[2], g.s[2], g.pb[2])
	for c := 0; c < len(masks); c += vec.MaskRecord {
		// Taps past the window's width take no lanes.
		for k := kw; k < 3; k++ {
			masks[c+k] = 0
		}
		if kw < 3 {
			masks[c+6] = 0
		}
	}
	colDiv, rowDiv := poolDivisors(g, a, len(masks)/vec.MaskRecord*16)
	start := float32(0)
	isMax := 0
	if a.max {
		start, isMax = float32(math.Inf(-1)), 1
	}
	inP, P := g.inSize(), g.outSize()
	return func(src, dst []float32, planes int) {
		if planes == 0 {
			return
		}
		args := vec.Pool2Args{
			Planes: planes, InP: inP, OutP: P,
			H: g.in[1], RowBytes: 4 * g.in[2], OH: OH, OW: OW, KH: g.k[1],
			SH: g.s[1], PT: g.pb[1], RowOff: 4 * g.pb[2],
			ChunkIn: 64 * g.s[2], IsMax: isMax, Start: start,
		}
		args.PFDist, args.PFLen = g.rowPrefetch()
		vec.Pool2(&args, src[:planes*inP], dst[:planes*P], masks, colDiv, rowDiv)
	}
}

// poolDivisors are an average pool's divisors as factors: output (oy, ox)
// divides its sum by rowDiv[oy]·colDiv[ox], the product of its window's
// row and column counts (both small integers, so exact), which is the
// count average divides by. A count of taps inside the input that is zero
// becomes +Inf, so that the sum of no taps, +0, gives average's 0.
func poolDivisors(g *geom3, a *poolAttrs, cols int) (colDiv, rowDiv []float32) {
	factor := func(in, k, s, pb, pe, o int) float32 {
		n, padded := 0, 0
		for t := range k {
			i := o*s - pb + t
			if i < in+pe {
				padded++
			}
			if i >= 0 && i < in {
				n++
			}
		}
		switch {
		case a.includePad:
			return float32(padded)
		case n == 0:
			return float32(math.Inf(1))
		}
		return float32(n)
	}
	colDiv = make([]float32, cols)
	for ox := range colDiv {
		colDiv[ox] = 1
		if ox < g.out[2] {
			colDiv[ox] = factor(g.in[2], g.k[2], g.s[2], g.pb[2], g.pe[2], ox)
		}
	}
	rowDiv = make([]float32, g.out[1])
	for oy := range rowDiv {
		rowDiv[oy] = factor(g.in[1], g.k[1], g.s[1], g.pb[1], g.pe[1], oy)
	}
	return colDiv, rowDiv
}
