//go:build !amd64 || noasm

package vec

// DWTaps is dwTapsRef (see dwtaps_amd64.go).
func DWTaps(src []float32, offs []int32, w []float32, bias float32, dst []float32) {
	if len(offs) > 0 && len(dst) > 0 {
		dwTapsCheck(src, offs, w, len(dst))
	}
	dwTapsRef(src, offs, w, bias, dst)
}

// DWTapsRows is DWTaps (rowLen, TapRows(offs), serves the AVX-512 kernels).
func DWTapsRows(src []float32, offs []int32, rowLen int, w []float32, bias float32, dst []float32) {
	DWTaps(src, offs, w, bias, dst)
}

// CopyRowsClamp is copyRowsClampRef.
func CopyRowsClamp(dst []float32, ldd int, src []float32, lds, rows, cols int, lo, hi float32) {
	copyRowsClampRef(dst, ldd, src, lds, rows, cols, lo, hi)
}

// DeinterleaveRows is deinterleaveRowsRef.
func DeinterleaveRows(even, odd []float32, ldd int, src []float32, lds, rows, w int) {
	deinterleaveRowsRef(even, odd, ldd, src, lds, rows, w)
}
