//go:build !noasm

package vec

import "unsafe"

//go:noescape
func dwTapsAVX512(n int, src *float32, offs *int32, taps int, w *float32, bias float32, dst *float32)

//go:noescape
func dwRows5AVX512(n int, src *float32, offs *int32, rows int, w *float32, bias float32, dst *float32)

//go:noescape
func dwRows7AVX512(n int, src *float32, offs *int32, rows int, w *float32, bias float32, dst *float32)

//go:noescape
func dwTapsAVX2(n int, src *float32, offs *int32, taps int, w *float32, bias float32, dst *float32)

// DWTaps sets dst[i] = bias + Σ_t w[t]·src[offs[t]+i] as dwTapsRef: whole
// vectors in AVX-512 (16 outputs) or AVX2 with FMA (8), the rest in Go.
// Every offset is ≥ 0 and src holds max(offs) + len(dst) values or more;
// with 16 more, windows whose taps come in rows of 5 or 7 consecutive
// offsets run on the AVX-512 row-run kernels (see DWTapsRows).
func DWTaps(src []float32, offs []int32, w []float32, bias float32, dst []float32) {
	DWTapsRows(src, offs, TapRows(offs), w, bias, dst)
}

// DWTapsRows is DWTaps told that offs comes in rows of rowLen consecutive
// offsets: rowLen must be TapRows(offs), which a caller running one window
// over many planes finds once. With AVX-512, rows of 5 or 7, a run
// of at least one group of 8 vectors (shorter runs, 7×7 planes, were
// slower so) and 16 values of src to spare after the run, it runs on the
// row-run kernels (gen/dwrows.go), the same sums in the same order.
func DWTapsRows(src []float32, offs []int32, rowLen int, w []float32, bias float32, dst []float32) {
	if len(offs) == 0 || len(dst) == 0 {
		dwTapsRef(src, offs, w, bias, dst)
		return
	}
	hi := dwTapsCheck(src, offs, w, len(dst))
	v := 0
	switch {
	case UseAVX512:
		v = len(dst) &^ 15
		if v == 0 {
			break
		}
		if l := rowLen; (l == 5 || l == 7) && v >= 128 && hi+v+16 <= len(src) && len(offs)%l == 0 {
			kernel := dwRows5AVX512
			if l == 7 {
				kernel = dwRows7AVX512
			}
			kernel(v, unsafe.SliceData(src), unsafe.SliceData(offs), len(offs)/l, unsafe.SliceData(w), bias, unsafe.SliceData(dst))
			break
		}
		dwTapsAVX512(v, unsafe.SliceData(src), unsafe.SliceData(offs), len(offs), unsafe.SliceData(w), bias, unsafe.SliceData(dst))
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
