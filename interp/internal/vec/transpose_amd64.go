//go:build !noasm

package vec

import "unsafe"

//go:noescape
func transpose16AVX512(n int, dst *float32, ldd int, src *float32, lds int)

// Transpose16 is transpose16Ref (n blocks of 16×16), in AVX-512 where
// there is.
func Transpose16(n int, dst []float32, ldd int, src []float32, lds int) {
	if n <= 0 {
		return
	}
	if !UseAVX512 {
		transpose16Ref(n, dst, ldd, src, lds)
		return
	}
	// Bounds checks: the assembly trusts these lengths.
	_ = src[15*lds+16*n-1]
	_ = dst[(16*n-1)*ldd+15]
	transpose16AVX512(n, unsafe.SliceData(dst), ldd, unsafe.SliceData(src), lds)
}
