//go:build !noasm

package vec

import (
	"math"
	"unsafe"
)

// act32_avx512_amd64.s, act32_avx2_amd64.s (generated): float32 lanes.

//go:noescape
func sigmoid32AVX512(n int, dst, src *float32)

//go:noescape
func sigmoid32AVX2(n int, dst, src *float32)

//go:noescape
func silu32AVX512(n int, dst, src *float32)

//go:noescape
func silu32AVX2(n int, dst, src *float32)

//go:noescape
func geluLanes32AVX512(n int, dst, src *float32)

//go:noescape
func geluLanes32AVX2(n int, dst, src *float32)

// Gelu32 sets d[i] = gelu32(s[i]) (the exact GELU in float32 lanes, within
// 1.72 ulp) for i < len(d), as Sigmoid32.
func Gelu32(d, s []float32) { lanes32(d, s, geluLanes32AVX512, geluLanes32AVX2, geluLanes32Ref) }

//go:noescape
func hardSigmoidGate32AVX512(n int, dst, src *float32, a, b float32)

//go:noescape
func hardSigmoidGate32AVX2(n int, dst, src *float32, a, b float32)

// Sigmoid32 sets d[i] = sigmoid32(s[i]) for i < len(d): 16 lanes at a
// time with AVX-512, 8 with AVX2 + FMA, a short tail through a padded
// vector so that it too costs one vector step.
func Sigmoid32(d, s []float32) { lanes32(d, s, sigmoid32AVX512, sigmoid32AVX2, sigmoid32Ref) }

// SiLU32 sets d[i] = s[i]·sigmoid32(s[i]) (the product rounded on its
// own), as Sigmoid32.
func SiLU32(d, s []float32) { lanes32(d, s, silu32AVX512, silu32AVX2, silu32Ref) }

//go:noescape
func expShift32AVX512(n int, dst, src *float32, m float32)

//go:noescape
func expShift32AVX2(n int, dst, src *float32, m float32)

// ExpShift32 sets d[i] = expNeg32(s[i] - m) for i < len(d): m must be at
// least every s[i] (a softmax row's maximum).
func ExpShift32(d, s []float32, m float32) {
	lanes32(d, s,
		func(n int, dst, src *float32) { expShift32AVX512(n, dst, src, m) },
		func(n int, dst, src *float32) { expShift32AVX2(n, dst, src, m) },
		func(d, s []float32) { expShift32Ref(d, s, m) })
}

// lanes32 runs a float32-lane routine on d and s: k512 with AVX-512, k2
// with AVX2 + FMA, ref without either; the tail through a padded vector.
func lanes32(d, s []float32, k512, k2 func(n int, dst, src *float32), ref func(d, s []float32)) {
	s = s[:len(d)]
	kernel, lanes := k2, 8
	switch {
	case UseAVX512:
		kernel, lanes = k512, 16
	case !HasFMA:
		ref(d, s)
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

// HardSigmoidGate32 sets d[i] = x·max(0, min(1, a·x+b)) for x = s[i] and
// i < len(d), as hardSigmoidGate32Ref; a must be finite and nonzero and b
// finite (else the reference runs).
func HardSigmoidGate32(d, s []float32, a, b float32) {
	s = s[:len(d)]
	kernel, lanes := hardSigmoidGate32AVX2, 8
	switch {
	case a == 0 || math.IsInf(float64(a), 0) || a != a || math.IsInf(float64(b), 0) || b != b || !HasFMA:
		hardSigmoidGate32Ref(d, s, a, b)
		return
	case UseAVX512:
		kernel, lanes = hardSigmoidGate32AVX512, 16
	}
	n := len(d) &^ (lanes - 1)
	if n > 0 {
		kernel(n, unsafe.SliceData(d), unsafe.SliceData(s), a, b)
	}
	hardSigmoidGate32Ref(d[n:], s[n:], a, b)
}
