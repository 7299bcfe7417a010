package interp

import (
	"math"
	"unsafe"
)

//go:noescape
func clampRowAVX(n int, y, res *float32, bias, lo, hi float32)

// clampRow sets row[i] = min(max(row[i]+bias+res[i], lo), hi) (res may be
// nil), exactly as the scalar loop does: a vector MAXPS or MINPS returns
// its second operand for equal zeros, which differs from Go's max and min
// only for lo = -0 or hi = +0, so those bounds stay scalar.
func clampRow(row, res []float32, bias, lo, hi float32) {
	v := 0
	if hasFMA && !(lo == 0 && math.Signbit(float64(lo))) && !(hi == 0 && !math.Signbit(float64(hi))) {
		v = len(row) &^ 7
		var rp *float32
		if res != nil {
			rp = unsafe.SliceData(res[:len(row)])
		}
		if v > 0 {
			clampRowAVX(v, unsafe.SliceData(row), rp, bias, lo, hi)
		}
	}
	if res != nil {
		res = res[v:]
	}
	clampRowGo(row[v:], res, bias, lo, hi)
}

//go:noescape
func dwConv3s1AVX(n int, src *float32, ld, rows int, w *[9]float32, bias float32, dst *float32)

//go:noescape
func dwConv3s2AVX(n int, src *float32, ld, rows int, w *[9]float32, bias float32, dst *float32)

// dwConv3Vector computes a prefix of dst, one output row of a 3×3
// depthwise convolution with horizontal stride sw (1 or 2) over rows
// kernel rows: dst[i] = bias + Σ_r Σ_k w[3r+k]·src[r·ld + sw·i + k], taps
// in row-major order. It returns how many outputs it computed: a multiple
// of 8, no more than src allows the vector loads to read.
func dwConv3Vector(src []float32, ld, rows, sw int, w *[9]float32, bias float32, dst []float32) int {
	if !hasFMA || rows < 1 || rows > 3 {
		return 0
	}
	// The last kernel row's loads reach sw·n + 1 past its start.
	avail := len(src) - (rows-1)*ld - 2
	n := min(len(dst), avail/sw) &^ 7
	if n <= 0 {
		return 0
	}
	if sw == 1 {
		dwConv3s1AVX(n, unsafe.SliceData(src), ld, rows, w, bias, unsafe.SliceData(dst))
	} else {
		dwConv3s2AVX(n, unsafe.SliceData(src), ld, rows, w, bias, unsafe.SliceData(dst))
	}
	return n
}
