//go:build !noasm

package vec

import "unsafe"

//go:noescape
func dwTapsAVX512(n int, src *float32, offs *int32, taps int, w *float32, bias float32, dst *float32)

//go:noescape
func dwTapsAVX2(n int, src *float32, offs *int32, taps int, w *float32, bias float32, dst *float32)

// DWTaps sets dst[i] = bias + Σ_t w[t]·src[offs[t]+i] as dwTapsRef: whole
// vectors in AVX-512 (16 outputs) or AVX2 with FMA (8), the rest in Go.
// Every offset is ≥ 0 and src holds max(offs) + len(dst) values or more.
func DWTaps(src []float32, offs []int32, w []float32, bias float32, dst []float32) {
	if len(offs) == 0 || len(dst) == 0 {
		dwTapsRef(src, offs, w, bias, dst)
		return
	}
	dwTapsCheck(src, offs, w, len(dst))
	v := 0
	switch {
	case UseAVX512:
		v = len(dst) &^ 15
		if v > 0 {
			dwTapsAVX512(v, unsafe.SliceData(src), unsafe.SliceData(offs), len(offs), unsafe.SliceData(w), bias, unsafe.SliceData(dst))
		}
	case HasFMA:
		v = len(dst) &^ 7
		if v > 0 {
			dwTapsAVX2(v, unsafe.SliceData(src), unsafe.SliceData(offs), len(offs), unsafe.SliceData(w), bias, unsafe.SliceData(dst))
		}
	}
	dwTapsRef(src[v:], offs, w, bias, dst[v:])
}

//go:noescape
func copyRowsClampAVX512(rows, cols int, dst *float32, ldd int, src *float32, lds int, lo, hi float32)

// CopyRowsClamp is copyRowsClampRef, in AVX-512 where the bounds allow
// (see clampExact).
func CopyRowsClamp(dst []float32, ldd int, src []float32, lds, rows, cols int, lo, hi float32) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if !UseAVX512 || !clampExact(lo, hi) {
		copyRowsClampRef(dst, ldd, src, lds, rows, cols, lo, hi)
		return
	}
	// Bounds checks: the assembly trusts these lengths.
	_ = dst[(rows-1)*ldd+cols-1]
	_ = src[(rows-1)*lds+cols-1]
	copyRowsClampAVX512(rows, cols, unsafe.SliceData(dst), ldd, unsafe.SliceData(src), lds, lo, hi)
}

//go:noescape
func deinterleaveRowsAVX512(rows, w int, src *float32, lds int, even, odd *float32, ldd int)

// DeinterleaveRows is deinterleaveRowsRef, in AVX-512 where there is.
func DeinterleaveRows(even, odd []float32, ldd int, src []float32, lds, rows, w int) {
	if rows <= 0 || w <= 0 {
		return
	}
	if !UseAVX512 || w < 2 {
		deinterleaveRowsRef(even, odd, ldd, src, lds, rows, w)
		return
	}
	// Bounds checks: the assembly trusts these lengths.
	_ = src[(rows-1)*lds+w-1]
	_ = even[(rows-1)*ldd+(w+1)/2-1]
	_ = odd[(rows-1)*ldd+w/2-1]
	deinterleaveRowsAVX512(rows, w, unsafe.SliceData(src), lds, unsafe.SliceData(even), unsafe.SliceData(odd), ldd)
}
