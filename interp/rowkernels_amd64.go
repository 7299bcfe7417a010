package interp

import (
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
	if hasFMA && vectorClampExact(lo, hi) {
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
func dwConv3s1AVX(n int, src *float32, ld, rows int, w *[9]float32, bias float32, dst *float32, acc int)

//go:noescape
func dwConv3s2AVX(n int, src *float32, ld, rows int, w *[9]float32, bias float32, dst *float32, acc int)

// dwConv3Vector computes a prefix of dst, one output row of a 3×3
// depthwise convolution with horizontal stride sw (1 or 2) over rows
// kernel rows: dst[i] = bias + Σ_r Σ_k w[3r+k]·src[r·ld + sw·i + k], taps
// in row-major order, or with acc, dst[i] += Σ_r Σ_k .... It returns how
// many outputs it computed: a multiple of 8, no more than src allows the
// vector loads to read.
func dwConv3Vector(src []float32, ld, rows, sw int, w *[9]float32, bias float32, dst []float32, acc bool) int {
	if !hasFMA || rows < 1 || rows > 3 {
		return 0
	}
	// The last kernel row's loads reach sw·n + 1 past its start.
	avail := len(src) - (rows-1)*ld - 2
	n := min(len(dst), avail/sw) &^ 7
	if n <= 0 {
		return 0
	}
	a := 0
	if acc {
		a = 1
	}
	if sw == 1 {
		dwConv3s1AVX(n, unsafe.SliceData(src), ld, rows, w, bias, unsafe.SliceData(dst), a)
	} else {
		dwConv3s2AVX(n, unsafe.SliceData(src), ld, rows, w, bias, unsafe.SliceData(dst), a)
	}
	return n
}

//go:noescape
func maxStepAVX(n int, m, src *float32, sw int)

//go:noescape
func sumStepAVX(n int, s, src *float32, sw int)

// poolStep applies one window tap to a row of pool outputs: acc[i] takes
// src[i·sw] when it is greater or NaN (max) or adds it (sum), exactly as
// the scalar loop does. The last outputs go through the vector kernel too,
// as one vector on a copy of the row's last 8, when src is long enough.
func poolStep(acc, src []float32, sw int, isMax bool) {
	n := len(acc)
	if !hasFMA || (sw != 1 && sw != 2) || n < 8 {
		poolStepGo(acc, src, sw, isMax)
		return
	}
	// Stride 2 loads reach src[2v-1].
	v := min(n, len(src)/sw) &^ 7
	var tail [8]float32
	t0 := n - 8
	withTail := v < n && n*sw <= len(src)
	if withTail {
		copy(tail[:], acc[t0:])
	}
	if v > 0 {
		poolStepAVX(v, acc, src, sw, isMax)
	}
	if withTail {
		poolStepAVX(8, tail[:], src[t0*sw:], sw, isMax)
		copy(acc[v:], tail[v-t0:])
		return
	}
	poolStepGo(acc[v:], src[v*sw:], sw, isMax)
}

// poolStepAVX runs the max or sum kernel on the first n outputs.
func poolStepAVX(n int, acc, src []float32, sw int, isMax bool) {
	if isMax {
		maxStepAVX(n, unsafe.SliceData(acc), unsafe.SliceData(src), sw)
	} else {
		sumStepAVX(n, unsafe.SliceData(acc), unsafe.SliceData(src), sw)
	}
}
