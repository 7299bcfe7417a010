package interp

import (
	"math"
	"unsafe"
)

//go:noescape
func expF64AVX512(n int, dst, src *float64)

//go:noescape
func maxRowAVX512(n int, src *float32) (m float32, nan bool)

//go:noescape
func softmaxExpAVX512(n int, dst, src *float32, m float32) float64

//go:noescape
func scaleRowAVX512(n int, dst *float32, s float64)

//go:noescape
func sigmoidAVX512(n int, dst, src *float32)

//go:noescape
func gelu32AVX512(n int, dst, src *float32)

//go:noescape
func geluTanhAVX512(n int, dst, src *float32, scale float64)

// The kernels below compute exponentials in float64 lanes with math.Exp's
// own operations (exp512_amd64.s), so they give their scalar loops'
// results bit for bit. Each computes a prefix of its output, a multiple of
// 8 elements, and returns its length; the caller finishes the tail.

// expVector sets dst[i] = math.Exp(src[i]) on a prefix of dst.
func expVector(dst, src []float64) int {
	n := min(len(dst), len(src)) &^ 7
	if !useAVX512 || n == 0 {
		return 0
	}
	expF64AVX512(n, unsafe.SliceData(dst), unsafe.SliceData(src))
	return n
}

// sigmoidVector is uSigmoid's loop on a prefix of d.
func sigmoidVector(d, s []float32) int {
	n := min(len(d), len(s)) &^ 7
	if !useAVX512 || n == 0 {
		return 0
	}
	sigmoidAVX512(n, unsafe.SliceData(d), unsafe.SliceData(s))
	return n
}

// gelu32Vector is gelu32 on a prefix of d.
func gelu32Vector(d, s []float32) int {
	n := min(len(d), len(s)) &^ 7
	if !useAVX512 || n == 0 {
		return 0
	}
	gelu32AVX512(n, unsafe.SliceData(d), unsafe.SliceData(s))
	return n
}

// geluTanhVector is float32(geluTanh(float64(v))) on a prefix of d.
func geluTanhVector(d, s []float32) int {
	n := min(len(d), len(s)) &^ 7
	if !useAVX512 || n == 0 {
		return 0
	}
	geluTanhAVX512(n, unsafe.SliceData(d), unsafe.SliceData(s), sqrt2OverPi)
	return n
}

// softmaxRowVector writes the softmax of the contiguous row src to dst
// (which may be src) exactly as softmaxStrided does: the same maximum,
// exponentials and float32 roundings, the sum added in the same order. It
// reports false, having written nothing, where it does not serve: no
// AVX-512, a row shorter than 16, or a NaN in the row (whose payload the
// scalar loop's maximum decides).
func softmaxRowVector(dst, src []float32) bool {
	n := len(src)
	if !useAVX512 || n < 16 || len(dst) < n {
		return false
	}
	dst = dst[:n]
	v16 := n &^ 15
	m, nan := maxRowAVX512(v16, unsafe.SliceData(src))
	for _, x := range src[v16:] {
		nan = nan || x != x
		m = max(m, x)
	}
	if nan {
		return false
	}
	v := n &^ 7
	sum := softmaxExpAVX512(v, unsafe.SliceData(dst), unsafe.SliceData(src), m)
	for k := v; k < n; k++ {
		e := math.Exp(float64(src[k] - m))
		dst[k] = float32(e)
		sum += e
	}
	inv := 1 / sum
	scaleRowAVX512(v, unsafe.SliceData(dst), inv)
	for k := v; k < n; k++ {
		dst[k] = float32(float64(dst[k]) * inv)
	}
	return true
}
