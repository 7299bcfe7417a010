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

// SoftmaxStrided writes the softmax of the n values of src at base,
// base+stride, ... to the same places of dst (which may be src), exactly
// as softmaxStridedRef: the same maximum, exponentials and float32
// roundings, the sum added in the same order. A contiguous row of 16 or
// more without NaN goes through the vector kernels.
func SoftmaxStrided(dst, src []float32, base, n, stride int) {
	if stride == 1 && n >= 16 && (UseAVX512 || HasFMA) && softmaxRowVector(dst[base:base+n], src[base:base+n]) {
		return
	}
	softmaxStridedRef(dst, src, base, n, stride)
}

// SoftmaxRows is SoftmaxStrided on each run of n values of src, four rows
// at a time where the AVX-512 kernel takes them.
func SoftmaxRows(dst, src []float32, n int) {
	rows := len(src) / max(n, 1)
	r := 0
	if UseAVX512 && n >= 16 {
		for ; r+4 <= rows; r += 4 {
			if !softmax4RowsVector(dst[r*n:(r+4)*n], src[r*n:(r+4)*n]) {
				for k := r; k < r+4; k++ {
					SoftmaxStrided(dst, src, k*n, n, 1)
				}
			}
		}
	}
	for ; r < rows; r++ {
		SoftmaxStrided(dst, src, r*n, n, 1)
	}
}

// SoftmaxCols8 is SoftmaxStrided on the eight columns base, ..., base+7,
// each n values stride apart (stride at least 8), eight lanes at once with
// AVX-512 when no column holds a NaN.
func SoftmaxCols8(dst, src []float32, base, n, stride int) {
	end := base + (n-1)*stride + 8
	if UseAVX512 && n >= 1 && stride >= 8 && base >= 0 && end <= len(src) && end <= len(dst) &&
		!softmaxColsAVX512(n, stride, &dst[base], &src[base]) {
		return
	}
	softmaxColsRef(dst, src, base, n, stride)
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

// softmaxRowVector writes the softmax of the contiguous row src (16 or
// more values) to dst. It reports false, having written nothing, for a
// NaN in the row (whose payload the scalar loop's maximum decides).
func softmaxRowVector(dst, src []float32) bool {
	n := len(src)
	m, ok := rowMaxVector(src)
	if !ok {
		return false
	}
	v := n &^ 7
	var sum float64
	if UseAVX512 {
		sum = softmaxExpAVX512(v, unsafe.SliceData(dst), unsafe.SliceData(src), m)
	} else {
		sum = softmaxExpAVX2(v, unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	finishSoftmaxRow(dst[:n], src, v, m, sum)
	return true
}

// softmax4RowsVector is softmaxRowVector on the four rows that src and
// dst hold, their additions overlapping; it declines all four if one has
// a NaN. AVX-512 only.
func softmax4RowsVector(dst, src []float32) bool {
	n := len(src) / 4
	var m [4]float32
	for r := range m {
		var ok bool
		if m[r], ok = rowMaxVector(src[r*n : (r+1)*n]); !ok {
			return false
		}
	}
	v := n &^ 7
	var sums [4]float64
	softmaxExp4AVX512(v, n, unsafe.SliceData(dst), unsafe.SliceData(src), &m, &sums)
	for r := range m {
		finishSoftmaxRow(dst[r*n:(r+1)*n], src[r*n:(r+1)*n], v, m[r], sums[r])
	}
	return true
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

// finishSoftmaxRow adds the exponentials of src[v:] to the kernel's sum of
// the first v, in order, and scales the row by 1/sum.
func finishSoftmaxRow(dst, src []float32, v int, m float32, sum float64) {
	for k := v; k < len(dst); k++ {
		e := math.Exp(float64(src[k] - m))
		dst[k] = float32(e)
		sum += e
	}
	inv := 1 / sum
	if UseAVX512 {
		scaleRowAVX512(v, unsafe.SliceData(dst), inv)
	} else {
		scaleRowAVX2(v, unsafe.SliceData(dst), inv)
	}
	for k := v; k < len(dst); k++ {
		dst[k] = float32(float64(dst[k]) * inv)
	}
}
