//go:build !noasm

package vec

import "unsafe"

// StripMove is stripMoveRef (1 ≤ cols ≤ 16) in one AVX-512 call where
// there is AVX-512.
func StripMove(dst []float32, ldd int, src []float32, lds, rows, cols int, bias, res []float32) {
	if rows <= 0 {
		return
	}
	if cols <= 0 || cols > 16 || !UseAVX512 {
		stripMoveRef(dst, ldd, src, lds, rows, cols, bias, res)
		return
	}
	// Bounds checks: the assembly trusts these lengths.
	_ = dst[(rows-1)*ldd+cols-1]
	_ = src[(rows-1)*lds+cols-1]
	var bp, rp *float32
	if bias != nil {
		bp = unsafe.SliceData(bias[:cols])
	}
	if res != nil {
		rp = unsafe.SliceData(res[:(rows-1)*ldd+cols])
	}
	stripMoveAVX512(rows, cols, unsafe.SliceData(dst), ldd, unsafe.SliceData(src), lds, bp, rp)
}

//go:noescape
func stripMoveAVX512(rows, cols int, dst *float32, ldd int, src *float32, lds int, bias, res *float32)
