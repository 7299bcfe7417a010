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
// 5.03 ulp) for i < len(d), as Sigmoid32.
func Gelu32(d, s []float32) { lanes32(d, s, laneGelu, 0) }

//go:noescape
func hardSigmoidGate32AVX512(n int, dst, src *float32, a, b float32)

//go:noescape
func hardSigmoidGate32AVX2(n int, dst, src *float32, a, b float32)

// Sigmoid32 sets d[i] = sigmoid32(s[i]) for i < len(d): 16 lanes at a
// time with AVX-512, 8 with AVX2 + FMA, a short tail through a padded
// vector so that it too costs one vector step.
func Sigmoid32(d, s []float32) { lanes32(d, s, laneSigmoid, 0) }

// SiLU32 sets d[i] = s[i]·sigmoid32(s[i]) (the product rounded on its
// own), as Sigmoid32.
func SiLU32(d, s []float32) { lanes32(d, s, laneSiLU, 0) }

//go:noescape
func expShift32AVX512(n int, dst, src *float32, m float32)

//go:noescape
func expShift32AVX2(n int, dst, src *float32, m float32)

// ExpShift32 sets d[i] = expNeg32(s[i] - m) for i < len(d): m must be at
// least every s[i] (a softmax row's maximum).
func ExpShift32(d, s []float32, m float32) { lanes32(d, s, laneExpShift, m) }

// laneOp names a float32-lane routine for lanes32.
type laneOp uint8

const (
	laneSigmoid laneOp = iota
	laneSiLU
	laneGelu
	laneTanh
	laneExpShift // e^(x - m)
)

// lanes32 runs the float32-lane routine op on d and s (m is ExpShift32's
// shift): with AVX-512 or AVX2 + FMA, the tail through a padded vector;
// without either, the reference. The routines are called by name, not
// through function values, so that the tail's vectors stay on the stack
// (a softmax calls this once a row).
func lanes32(d, s []float32, op laneOp, m float32) {
	s = s[:len(d)]
	lanes := 8
	switch {
	case UseAVX512:
		lanes = 16
	case !HasFMA:
		laneRef(op, d, s, m)
		return
	}
	n := len(d) &^ (lanes - 1)
	if n > 0 {
		laneKernel(op, lanes == 16, n, unsafe.SliceData(d), unsafe.SliceData(s), m)
	}
	if rest := len(d) - n; rest > 0 {
		var in, out [16]float32
		copy(in[:], s[n:])
		laneKernel(op, lanes == 16, lanes, &out[0], &in[0], m)
		copy(d[n:], out[:rest])
	}
}

// laneKernel runs op's AVX-512 (wide) or AVX2 routine on n values.
func laneKernel(op laneOp, wide bool, n int, dst, src *float32, m float32) {
	switch op {
	case laneSigmoid:
		if wide {
			sigmoid32AVX512(n, dst, src)
		} else {
			sigmoid32AVX2(n, dst, src)
		}
	case laneSiLU:
		if wide {
			silu32AVX512(n, dst, src)
		} else {
			silu32AVX2(n, dst, src)
		}
	case laneGelu:
		if wide {
			geluLanes32AVX512(n, dst, src)
		} else {
			geluLanes32AVX2(n, dst, src)
		}
	case laneTanh:
		if wide {
			tanh32AVX512(n, dst, src)
		} else {
			tanh32AVX2(n, dst, src)
		}
	case laneExpShift:
		if wide {
			expShift32AVX512(n, dst, src, m)
		} else {
			expShift32AVX2(n, dst, src, m)
		}
	}
}

// laneRef is op's scalar reference.
func laneRef(op laneOp, d, s []float32, m float32) {
	switch op {
	case laneSigmoid:
		sigmoid32Ref(d, s)
	case laneSiLU:
		silu32Ref(d, s)
	case laneGelu:
		geluLanes32Ref(d, s)
	case laneTanh:
		tanh32Ref(d, s)
	case laneExpShift:
		expShift32Ref(d, s, m)
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
