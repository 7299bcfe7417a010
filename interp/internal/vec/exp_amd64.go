//go:build !noasm

package vec

import (
	"math"
	"unsafe"
)

// vector8 runs a kernel on the multiple-of-8 prefix of d and s and returns
// its length: k512 with AVX-512, else k2 (nil if there is none) with AVX2
// + FMA; 0 when neither serves.
func vector8[T float32 | float64](d, s []T, k512, k2 func(n int, d, s *T)) int {
	n := min(len(d), len(s)) &^ 7
	switch {
	case n == 0:
		return 0
	case UseAVX512:
		k512(n, unsafe.SliceData(d), unsafe.SliceData(s))
	case HasFMA && k2 != nil:
		k2(n, unsafe.SliceData(d), unsafe.SliceData(s))
	default:
		return 0
	}
	return n
}

// Exp64 sets d[i] = math.Exp(s[i]) for i < len(d).
func Exp64(d, s []float64) {
	v := vector8(d, s, expF64AVX512, expF64AVX2)
	exp64Ref(d[v:], s[v:])
}

// Sigmoid sets d[i] = float32(1 / (1 + math.Exp(-float64(s[i])))).
func Sigmoid(d, s []float32) {
	v := vector8(d, s, sigmoidAVX512, sigmoidAVX2)
	sigmoidRef(d[v:], s[v:])
}

// Sigmoid64 sets d[i] = 1 / (1 + math.Exp(-s[i])).
func Sigmoid64(d, s []float64) {
	v := vector8(d, s, sigmoid64AVX512, sigmoid64AVX2)
	sigmoid64Ref(d[v:], s[v:])
}

// Tanh sets d[i] = float32(math.Tanh(float64(s[i]))).
func Tanh(d, s []float32) {
	v := vector8(d, s, tanhAVX512, tanhAVX2)
	tanhRef(d[v:], s[v:])
}

// Tanh64 sets d[i] = math.Tanh(s[i]).
func Tanh64(d, s []float64) {
	v := vector8(d, s, tanh64AVX512, tanh64AVX2)
	tanh64Ref(d[v:], s[v:])
}

// Gelu sets d[i] = Gelu1(s[i]).
func Gelu(d, s []float32) {
	v := vector8(d, s, gelu32AVX512, gelu32AVX2)
	geluRef(d[v:], s[v:])
}

// GeluTanh sets d[i] = float32(GeluTanh1(float64(s[i]))).
func GeluTanh(d, s []float32) {
	v := vector8(d, s,
		func(n int, d, s *float32) { geluTanhAVX512(n, d, s, sqrt2OverPi) },
		func(n int, d, s *float32) { geluTanhAVX2(n, d, s, sqrt2OverPi) })
	geluTanhRef(d[v:], s[v:])
}

// Erf sets d[i] = float32(math.Erf(float64(s[i]))). The kernels repeat
// math.Erf's operations unfused, so they serve only where the standard
// library's erf does not fuse multiply-adds (below GOAMD64=v3).
func Erf(d, s []float32) {
	v := 0
	if !mathFusesMultiplyAdd {
		v = vector8(d, s, erfAVX512, erfAVX2)
	}
	erfRef(d[v:], s[v:])
}

// Erf64 sets d[i] = math.Erf(s[i]), as Erf.
func Erf64(d, s []float64) {
	v := 0
	if !mathFusesMultiplyAdd {
		v = vector8(d, s, erf64AVX512, erf64AVX2)
	}
	erf64Ref(d[v:], s[v:])
}

// Softmax64 replaces row by its softmax exactly as softmax64Ref does (the
// same maximum, exponentials, order of addition and divisions).
func Softmax64(row []float64) {
	n := len(row)
	if !UseAVX512 || n < 8 {
		softmax64Ref(row)
		return
	}
	v := n &^ 7
	m, nan := maxRow64AVX512(v, unsafe.SliceData(row))
	for _, s := range row[v:] {
		nan = nan || s != s
		m = math.Max(m, s)
	}
	if nan {
		softmax64Ref(row)
		return
	}
	sum := softmaxExp64AVX512(v, unsafe.SliceData(row), m)
	for j := v; j < n; j++ {
		e := math.Exp(row[j] - m)
		row[j] = e
		sum += e
	}
	divRow64AVX512(v, unsafe.SliceData(row), sum)
	for j := v; j < n; j++ {
		row[j] /= sum
	}
}

// rowMaxVector returns the maximum of src (at least 16 values) as the
// scalar loop finds it, but for the sign of a zero maximum, which no
// difference x - max shows; ok is false if src holds a NaN.
func rowMaxVector(src []float32) (m float32, ok bool) {
	v16 := len(src) &^ 15
	var nan bool
	if UseAVX512 {
		m, nan = maxRowAVX512(v16, unsafe.SliceData(src))
	} else {
		m, nan = maxRowAVX2(v16, unsafe.SliceData(src))
	}
	for _, x := range src[v16:] {
		nan = nan || x != x
		m = max(m, x)
	}
	return m, !nan
}
