package interp

import (
	"unsafe"
)

// dw3Args describes planes for dw3s1AVX512 and dw3s2AVX512; the kernels
// read it at the offsets defined in depthwise512_amd64.s and advance W,
// Bias and Planes as they go.
type dw3Args struct {
	Src, Dst *float32 // the first input and output planes
	W        *float32 // 9 weights a plane, plane after plane
	Bias     *float32 // the first plane's bias
	Masks    *uint16  // dw3MaskRecord uint16s a chunk of 16 outputs
	Perm     *int32   // even then odd places, 16 each (stride 2)
	Planes   int
	InP      int // elements from one input plane to the next
	OutP     int
	BiasStep int // bytes from one plane's bias to the next: 4, or 0 for one shared zero
	H        int
	RowBytes int // input row length in bytes
	OH, OW   int
	SH, PT   int // vertical stride and top pad
	RowOff   int // left pad in bytes
	Chunks   int // chunks of 16 outputs a row
	Lo, Hi   float32
	PFDist   int // how far ahead of the window's first row to prefetch, in bytes
	PFLen    int // input bytes the window moves down a row of outputs
}

//go:noescape
func dw3s1AVX512(a *dw3Args)

//go:noescape
func dw3s2AVX512(a *dw3Args)

// dw3PrefetchDistance is how many bytes ahead the kernels prefetch their
// input: about what they consume in a DRAM latency, with room to spare.
const dw3PrefetchDistance = 8192

// rowPrefetch is how far ahead of a 2-D window's first row the depthwise
// and pool kernels prefetch (at least 4 input rows) and how many input
// bytes the window moves down a row of outputs.
func (g *geom3) rowPrefetch() (dist, n int) {
	return max(dw3PrefetchDistance, 4*4*g.in[2]), 4 * g.s[1] * g.in[2]
}

// dw3Perm holds the even places of 32 floats, then the odd ones.
var dw3Perm = func() (p [32]int32) {
	for i := range 16 {
		p[i], p[16+i] = int32(2*i), int32(2*i+1)
	}
	return p
}()

// dw3MaskRecord is the number of masks a chunk of 16 outputs has: for each
// horizontal tap k the outputs whose tap is inside the row (0–2), the
// outputs inside the row (3), and for stride 2 the inputs inside the row
// among the 32 from the chunk's first tap (4–5) and whether the input after
// them is (6, all ones or zero, for a broadcast load); 7 is unused.
const dw3MaskRecord = 8

// dw3Masks builds the mask records of an output row of ow outputs with
// horizontal stride sw and left pad pl over input rows of w elements.
func dw3Masks(ow, w, sw, pl int) []uint16 {
	chunks := (ow + 15) / 16
	m := make([]uint16, chunks*dw3MaskRecord)
	inside := func(first, lanes, step int) (bits uint16) {
		for i := range lanes {
			if ix := first + i*step; ix >= 0 && ix < w {
				bits |= 1 << i
			}
		}
		return bits
	}
	for c := range chunks {
		ox0, rec := 16*c, m[c*dw3MaskRecord:]
		lanes := min(16, ow-ox0)
		for k := range 3 {
			rec[k] = inside(ox0*sw+k-pl, lanes, sw)
		}
		rec[3] = uint16(1<<lanes - 1)
		if sw == 2 {
			base := 2*ox0 - pl
			rec[4], rec[5] = inside(base, 16, 1), inside(base+16, 16, 1)
			if inside(base+32, 1, 1) != 0 {
				rec[6] = 0xffff
			}
		}
	}
	return m
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
	if !g.rows3x3() || ep.res != nil || !canClampTile(lo, hi) {
		return false
	}
	OH, OW := g.out[1], g.out[2]
	masks := dw3Masks(OW, g.in[2], g.s[2], g.pb[2])
	kernel := dw3s1AVX512
	if g.s[2] == 2 {
		kernel = dw3s2AVX512
	}
	P, inP := g.outSize(), g.inSize()
	var zero float32
	parallelFor(n*c, P*9, func(p0, p1 int) {
		for p := p0; p < p1; {
			ch := p % c
			planes := min(p1-p, c-ch)
			a := dw3Args{
				Src: &x[p*inP], Dst: &y[p*P], W: &w[ch*9], Bias: &zero,
				Masks: &masks[0], Perm: &dw3Perm[0],
				Planes: planes, InP: inP, OutP: P,
				H: g.in[1], RowBytes: 4 * g.in[2], OH: OH, OW: OW,
				SH: g.s[1], PT: g.pb[1], RowOff: 4 * g.pb[2], Chunks: len(masks) / dw3MaskRecord,
				Lo: lo, Hi: hi,
			}
			a.PFDist, a.PFLen = g.rowPrefetch()
			if bias != nil {
				a.Bias, a.BiasStep = &bias[ch], 4
			}
			_ = x[(p+planes)*inP-1] // bounds checks: the assembly trusts these lengths
			_ = y[(p+planes)*P-1]
			_ = w[(ch+planes)*9-1]
			if bias != nil {
				_ = bias[ch+planes-1]
			}
			kernel(&a)
			p += planes
		}
	})
	return true
}

// dw3ArgsOffsets lists dw3Args' field offsets in the order the assembly
// defines them, for a test to compare.
var dw3ArgsOffsets = [...]uintptr{
	unsafe.Offsetof(dw3Args{}.Src), unsafe.Offsetof(dw3Args{}.Dst), unsafe.Offsetof(dw3Args{}.W),
	unsafe.Offsetof(dw3Args{}.Bias), unsafe.Offsetof(dw3Args{}.Masks), unsafe.Offsetof(dw3Args{}.Perm),
	unsafe.Offsetof(dw3Args{}.Planes), unsafe.Offsetof(dw3Args{}.InP), unsafe.Offsetof(dw3Args{}.OutP),
	unsafe.Offsetof(dw3Args{}.BiasStep), unsafe.Offsetof(dw3Args{}.H), unsafe.Offsetof(dw3Args{}.RowBytes),
	unsafe.Offsetof(dw3Args{}.OH), unsafe.Offsetof(dw3Args{}.OW), unsafe.Offsetof(dw3Args{}.SH),
	unsafe.Offsetof(dw3Args{}.PT), unsafe.Offsetof(dw3Args{}.RowOff), unsafe.Offsetof(dw3Args{}.Chunks),
	unsafe.Offsetof(dw3Args{}.Lo), unsafe.Offsetof(dw3Args{}.Hi), unsafe.Offsetof(dw3Args{}.PFDist),
	unsafe.Offsetof(dw3Args{}.PFLen),
}
