//go:build !noasm

package vec

// tanh32_avx512_amd64.s, tanh32_avx2_amd64.s (generated): float32 lanes.

//go:noescape
func tanh32AVX512(n int, dst, src *float32)

//go:noescape
func tanh32AVX2(n int, dst, src *float32)

// Tanh32 sets d[i] = tanh32(s[i]) (tanh in float32 lanes, within 1.12
// ulp) for i < len(d), as Sigmoid32.
func Tanh32(d, s []float32) { lanes32(d, s, laneTanh, 0) }
