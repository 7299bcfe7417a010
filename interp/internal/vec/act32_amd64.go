//go:build !noasm

package vec

import "unsafe"

// act32_avx512_amd64.s, act32_avx2_amd64.s (generated): float32 lanes.

//go:noescape
func sigmoid32AVX512(n int, dst, src *float32)

//go:noescape
func sigmoid32AVX2(n int, dst, src *float32)

// Sigmoid32 sets d[i] = sigmoid32(s[i]) for i < len(d): 16 lanes at a
// time with AVX-512, 8 with AVX2 + FMA, a short tail through a padded
// vector so that it too costs one vector step.
func Sigmoid32(d, s []float32) {
	s = s[:len(d)]
	kernel, lanes := sigmoid32AVX2, 8
	switch {
	case UseAVX512:
		kernel, lanes = sigmoid32AVX512, 16
	case !HasFMA:
		sigmoid32Ref(d, s)
		return
	}
	n := len(d) &^ (lanes - 1)
	if n > 0 {
		kernel(n, unsafe.SliceData(d), unsafe.SliceData(s))
	}
	if rest := len(d) - n; rest > 0 {
		var in, out [16]float32
		copy(in[:], s[n:])
		kernel(lanes, &out[0], &in[0])
		copy(d[n:], out[:rest])
	}
}
