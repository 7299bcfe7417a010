//go:build !noasm

package vec

import "unsafe"

// ClampRow sets row[i] = min(max(row[i]+bias+res[i], lo), hi) (res may be
// nil), exactly as clampRowRef: bounds the vector MAXPS and MINPS would
// order differently (see clampExact) stay scalar.
func ClampRow(row, res []float32, bias, lo, hi float32) {
	v := 0
	if HasFMA && clampExact(lo, hi) {
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
	clampRowRef(row[v:], res, bias, lo, hi)
}

// DWConv3Row computes dst, one output row of a 3×3 depthwise convolution
// with horizontal stride sw (1 or 2) over rows kernel rows (1 to 3), as
// dwConv3RowRef: src holds (rows-1)·ld + sw·(len(dst)-1) + 3 values or
// more. Whole vectors whose loads stay inside src run in AVX2.
func DWConv3Row(src []float32, ld, rows, sw int, w *[9]float32, bias float32, dst []float32, acc bool) {
	v := 0
	if HasFMA && rows >= 1 && rows <= 3 && (sw == 1 || sw == 2) {
		// The last kernel row's loads reach sw·n + 1 past its start.
		avail := len(src) - (rows-1)*ld - 2
		v = max(min(len(dst), avail/sw)&^7, 0)
	}
	if v > 0 {
		a := 0
		if acc {
			a = 1
		}
		if sw == 1 {
			dwConv3s1AVX(v, unsafe.SliceData(src), ld, rows, w, bias, unsafe.SliceData(dst), a)
		} else {
			dwConv3s2AVX(v, unsafe.SliceData(src), ld, rows, w, bias, unsafe.SliceData(dst), a)
		}
	}
	dwConv3RowRef(src[v*sw:], ld, rows, sw, w, bias, dst[v:], acc)
}

// PoolStep applies one window tap to a row of pool outputs as poolStepRef.
// The last outputs go through the vector kernel too, as one vector on a
// copy of the row's last 8, when src is long enough.
func PoolStep(acc, src []float32, sw int, isMax bool) {
	n := len(acc)
	if !HasFMA || (sw != 1 && sw != 2) || n < 8 {
		poolStepRef(acc, src, sw, isMax)
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
	poolStepRef(acc[v:], src[v*sw:], sw, isMax)
}

// poolStepAVX runs the max or sum kernel on the first n outputs.
func poolStepAVX(n int, acc, src []float32, sw int, isMax bool) {
	if isMax {
		maxStepAVX(n, unsafe.SliceData(acc), unsafe.SliceData(src), sw)
	} else {
		sumStepAVX(n, unsafe.SliceData(acc), unsafe.SliceData(src), sw)
	}
}

// ClampTile is clampTileRef (1 ≤ cols ≤ 16 columns): the epilogue of a
// GEMM strip while it is in L1, in one AVX-512 call where the bounds allow.
func ClampTile(y []float32, ld, rows, cols int, bias, res []float32, lo, hi float32) {
	if rows <= 0 {
		return
	}
	if cols <= 0 || cols > 16 || !UseAVX512 || !clampExact(lo, hi) {
		clampTileRef(y, ld, rows, cols, bias, res, lo, hi)
		return
	}
	// Bounds checks: the assembly trusts these lengths.
	last := (rows-1)*ld + cols
	_ = y[last-1]
	var bp, rp *float32
	if bias != nil {
		bp = unsafe.SliceData(bias[:rows])
	}
	if res != nil {
		rp = unsafe.SliceData(res[:last])
	}
	clampTileAVX512(rows, cols, unsafe.SliceData(y), ld, bp, rp, lo, hi)
}
