package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// dw3PrefetchDistance is how many bytes ahead the kernels prefetch their
// input: about what they consume in a DRAM latency, with room to spare.
const dw3PrefetchDistance = 8192

// rowPrefetch is how far ahead of a 2-D window's first row the depthwise
// and pool kernels prefetch (at least 4 input rows) and how many input
// bytes the window moves down a row of outputs.
func (g *geom3) rowPrefetch() (dist, n int) {
	return max(dw3PrefetchDistance, 4*4*g.in[2]), 4 * g.s[1] * g.in[2]
}

// depthwise3x3AVX512 computes a 2-D 3×3 depthwise convolution with unit
// dilation and horizontal stride 1 or 2 straight from the input planes,
// 16 outputs a vector: masked loads and masked fused multiply-adds leave
// the taps in the pads out, so each output is its bias plus its taps
// inside the plane in row-major order, as in the definition, with no
// padded copy and no per-row Go code. The clamp runs on each vector before
// it is stored. It reports false, computing nothing, where it does not
// serve: no AVX-512, a residual to add, or bounds whose signed zeros the
// vector min and max would order differently from Go's (see clampRow).
func depthwise3x3AVX512(g *geom3, x, w, bias, y []float32, n, c int, ep clampEp) bool {
	lo, hi := ep.bounds()
	if !useAVX512 || !g.rows3x3() || ep.res != nil || !canClampTile(lo, hi) {
		return false
	}
	masks := vec.DW3Masks(g.out[2], g.in[2], g.s[2], g.pb[2])
	P, inP := g.outSize(), g.inSize()
	pfDist, pfLen := g.rowPrefetch()
	parallelFor(n*c, P*9, func(p0, p1 int) {
		for p := p0; p < p1; {
			ch := p % c
			planes := min(p1-p, c-ch)
			a := vec.DW3Args{
				Planes: planes, InP: inP, OutP: P,
				H: g.in[1], RowBytes: 4 * g.in[2], OH: g.out[1], OW: g.out[2],
				SH: g.s[1], PT: g.pb[1], RowOff: 4 * g.pb[2],
				Lo: lo, Hi: hi, PFDist: pfDist, PFLen: pfLen,
			}
			var b []float32
			if bias != nil {
				b = bias[ch : ch+planes]
			}
			vec.DW3(&a, g.s[2], x[p*inP:(p+planes)*inP], y[p*P:(p+planes)*P], w[ch*9:(ch+planes)*9], b, masks)
			p += planes
		}
	})
	return true
}
