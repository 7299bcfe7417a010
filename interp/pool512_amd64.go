package interp

import (
	"math"
	"unsafe"
)

// pool2Args describes planes for pool2AVX512; the kernel reads it at the
// offsets defined in pool512_amd64.s and writes From1 and Rows as it goes.
type pool2Args struct {
	Src, Dst *float32 // the first input and output planes
	Masks    *uint16  // dw3MaskRecord uint16s a chunk of 16 outputs
	Perm     *int32   // even then odd places, 16 each (stride 2)
	ColDiv   *float32 // an average's divisor factor of each output column, 16 a chunk
	RowDiv   *float32 // an average's divisor factor of each output row
	Planes   int
	InP      int // elements from one input plane to the next
	OutP     int
	H        int
	RowBytes int // input row length in bytes
	OH, OW   int
	KH       int
	SH, PT   int // vertical stride and top pad
	RowOff   int // left pad in bytes
	Chunks   int // chunks of 16 outputs a row
	ChunkIn  int // input bytes from one chunk's first tap to the next's: 64·stride
	IsMax    int // 1 for a max pool, 0 for an average
	Start    float32
	_        float32
	PFDist   int // how far ahead of the window's first row to prefetch, in bytes
	PFLen    int // input bytes the window moves down a row of outputs
	From1    int // (kernel's) the first window row of the pass's second output row
	Rows     int // (kernel's) window rows the pass reads
}

//go:noescape
func pool2AVX512(a *pool2Args)

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
	masks := dw3Masks(OW, g.in[2], g.s[2], g.pb[2])
	for c := 0; c < len(masks); c += dw3MaskRecord {
		// Taps past the window's width take no lanes.
		for k := kw; k < 3; k++ {
			masks[c+k] = 0
		}
		if kw < 3 {
			masks[c+6] = 0
		}
	}
	colDiv, rowDiv := poolDivisors(g, a, len(masks)/dw3MaskRecord*16)
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
		args := pool2Args{
			Src: &src[0], Dst: &dst[0], Masks: &masks[0], Perm: &dw3Perm[0],
			ColDiv: &colDiv[0], RowDiv: &rowDiv[0],
			Planes: planes, InP: inP, OutP: P,
			H: g.in[1], RowBytes: 4 * g.in[2], OH: OH, OW: OW, KH: g.k[1],
			SH: g.s[1], PT: g.pb[1], RowOff: 4 * g.pb[2], Chunks: len(masks) / dw3MaskRecord,
			ChunkIn: 64 * g.s[2], IsMax: isMax, Start: start,
		}
		args.PFDist, args.PFLen = g.rowPrefetch()
		_ = src[planes*inP-1]
		_ = dst[planes*P-1]
		pool2AVX512(&args)
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

// pool2ArgsOffsets lists pool2Args' field offsets in the order the
// assembly defines them, for a test to compare.
var pool2ArgsOffsets = [...]uintptr{
	unsafe.Offsetof(pool2Args{}.Src), unsafe.Offsetof(pool2Args{}.Dst), unsafe.Offsetof(pool2Args{}.Masks),
	unsafe.Offsetof(pool2Args{}.Perm), unsafe.Offsetof(pool2Args{}.ColDiv), unsafe.Offsetof(pool2Args{}.RowDiv),
	unsafe.Offsetof(pool2Args{}.Planes), unsafe.Offsetof(pool2Args{}.InP), unsafe.Offsetof(pool2Args{}.OutP),
	unsafe.Offsetof(pool2Args{}.H), unsafe.Offsetof(pool2Args{}.RowBytes), unsafe.Offsetof(pool2Args{}.OH),
	unsafe.Offsetof(pool2Args{}.OW), unsafe.Offsetof(pool2Args{}.KH), unsafe.Offsetof(pool2Args{}.SH),
	unsafe.Offsetof(pool2Args{}.PT), unsafe.Offsetof(pool2Args{}.RowOff), unsafe.Offsetof(pool2Args{}.Chunks),
	unsafe.Offsetof(pool2Args{}.ChunkIn), unsafe.Offsetof(pool2Args{}.IsMax), unsafe.Offsetof(pool2Args{}.Start),
	unsafe.Offsetof(pool2Args{}.PFDist), unsafe.Offsetof(pool2Args{}.PFLen), unsafe.Offsetof(pool2Args{}.From1),
	unsafe.Offsetof(pool2Args{}.Rows),
}
