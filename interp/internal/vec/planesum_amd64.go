//go:build !noasm

package vec

import "unsafe"

//go:noescape
func sumPlanes8AVX512(blocks int, src *float32, stride int, dst *[8]float64)

// SumPlanes8 sets dst[j] to the float64 sum of src[j*stride+i] for i < n,
// in i's order from +0, for eight planes (GlobalAveragePool's sums, eight
// planes at a time). With AVX-512 each float64 lane of one accumulator
// follows one plane: eight values of each plane are loaded, transposed so
// that the t-th vector holds every plane's t-th value, widened and added
// in t's order, so every lane adds its plane's values one at a time in
// order, as sumPlanes8Ref does (the same bits); the last n mod 8 values
// are added after, in Go.
func SumPlanes8(dst *[8]float64, src []float32, stride, n int) {
	if !UseAVX512 || n < 8 {
		sumPlanes8Ref(dst, src, stride, n)
		return
	}
	_ = src[7*stride+n-1] // the assembly trusts these lengths
	blocks := n / 8
	sumPlanes8AVX512(blocks, unsafe.SliceData(src), stride, dst)
	for j := range dst {
		s := dst[j]
		for _, v := range src[j*stride+8*blocks : j*stride+n] {
			s += float64(v)
		}
		dst[j] = s
	}
}
