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
func softmaxExp4AVX512(n, ld int, dst, src *float32, m *[4]float32, sums *[4]float64)

//go:noescape
func sigmoid64AVX512(n int, dst, src *float64)

//go:noescape
func tanh64AVX512(n int, dst, src *float64)

//go:noescape
func tanhAVX512(n int, dst, src *float32)

//go:noescape
func maxRow64AVX512(n int, src *float64) (m float64, nan bool)

//go:noescape
func softmaxExp64AVX512(n int, row *float64, m float64) float64

//go:noescape
func divRow64AVX512(n int, row *float64, s float64)

//go:noescape
func erfAVX512(n int, dst, src *float32)

//go:noescape
func erf64AVX512(n int, dst, src *float64)

//go:noescape
func expF64AVX2(n int, dst, src *float64)

//go:noescape
func erfAVX2(n int, dst, src *float32)

//go:noescape
func erf64AVX2(n int, dst, src *float64)

//go:noescape
func maxRowAVX2(n int, src *float32) (m float32, nan bool)

//go:noescape
func softmaxExpAVX2(n int, dst, src *float32, m float32) float64

//go:noescape
func scaleRowAVX2(n int, dst *float32, s float64)

//go:noescape
func sigmoidAVX2(n int, dst, src *float32)

//go:noescape
func gelu32AVX2(n int, dst, src *float32)

//go:noescape
func geluTanhAVX2(n int, dst, src *float32, scale float64)

//go:noescape
func softmaxColsAVX512(n, stride int, dst, src *float32) (nan bool)

//go:noescape
func scaleRowAVX512(n int, dst *float32, s float64)

//go:noescape
func sigmoidAVX512(n int, dst, src *float32)

//go:noescape
func gelu32AVX512(n int, dst, src *float32)

//go:noescape
func geluTanhAVX512(n int, dst, src *float32, scale float64)

// The kernels below compute exponentials in float64 lanes with math.Exp's
// own operations (exp512_amd64.s, and exp2_amd64.s for AVX2 + FMA without
// AVX-512), so they give their scalar loops' results bit for bit. Each
// computes a prefix of its output, a multiple of 8 elements, and returns
// its length; the caller finishes the tail. The AVX2 kernels serve exp,
// Sigmoid, both Gelus and Softmax one row at a time; four rows at once,
// Tanh, the float64 Sigmoid and Tanh, and the float64 softmax need AVX-512.

// prefix8 runs a kernel on the multiple-of-8 prefix of d and s and
// returns its length: k512 with AVX-512, else k2 (nil if there is none)
// with AVX2 + FMA; 0 when neither serves.
func prefix8[T float32 | float64](d, s []T, k512, k2 func(n int, d, s *T)) int {
	n := min(len(d), len(s)) &^ 7
	switch {
	case n == 0:
		return 0
	case useAVX512:
		k512(n, unsafe.SliceData(d), unsafe.SliceData(s))
	case hasFMA && k2 != nil:
		k2(n, unsafe.SliceData(d), unsafe.SliceData(s))
	default:
		return 0
	}
	return n
}

// expVector sets dst[i] = math.Exp(src[i]) on a prefix of dst.
func expVector(dst, src []float64) int { return prefix8(dst, src, expF64AVX512, expF64AVX2) }

// sigmoid64Vector sets d[i] = 1 / (1 + math.Exp(-s[i])) on a prefix of d.
func sigmoid64Vector(d, s []float64) int { return prefix8(d, s, sigmoid64AVX512, nil) }

// tanh64Vector sets d[i] = math.Tanh(s[i]) on a prefix of d.
func tanh64Vector(d, s []float64) int { return prefix8(d, s, tanh64AVX512, nil) }

// tanhVector is uTanh's loop on a prefix of d.
func tanhVector(d, s []float32) int { return prefix8(d, s, tanhAVX512, nil) }

// sigmoidVector is uSigmoid's loop on a prefix of d.
func sigmoidVector(d, s []float32) int { return prefix8(d, s, sigmoidAVX512, sigmoidAVX2) }

// gelu32Vector is gelu32 on a prefix of d.
func gelu32Vector(d, s []float32) int { return prefix8(d, s, gelu32AVX512, gelu32AVX2) }

// geluTanhVector is float32(geluTanh(float64(v))) on a prefix of d.
func geluTanhVector(d, s []float32) int {
	return prefix8(d, s,
		func(n int, d, s *float32) { geluTanhAVX512(n, d, s, sqrt2OverPi) },
		func(n int, d, s *float32) { geluTanhAVX2(n, d, s, sqrt2OverPi) })
}

// erfVector sets d[i] = float32(math.Erf(float64(s[i]))) on a prefix of
// d. It declines where the standard library's erf fuses multiply-adds
// (GOAMD64=v3 and up), which the kernels do not.
func erfVector(d, s []float32) int {
	if mathFusesMultiplyAdd {
		return 0
	}
	return prefix8(d, s, erfAVX512, erfAVX2)
}

// erf64Vector sets d[i] = math.Erf(s[i]) on a prefix of d, as erfVector
// does before rounding to float32.
func erf64Vector(d, s []float64) int {
	if mathFusesMultiplyAdd {
		return 0
	}
	return prefix8(d, s, erf64AVX512, erf64AVX2)
}

// softmaxRowVector writes the softmax of the contiguous row src to dst
// (which may be src) exactly as softmaxStrided does: the same maximum,
// exponentials and float32 roundings, the sum added in the same order. It
// reports false, having written nothing, where it does not serve: neither
// AVX-512 nor AVX2 + FMA, a row shorter than 16, or a NaN in the row (whose
// payload the scalar loop's maximum decides).
func softmaxRowVector(dst, src []float32) bool {
	n := len(src)
	if !(useAVX512 || hasFMA) || n < 16 || len(dst) < n {
		return false
	}
	m, ok := rowMaxVector(src)
	if !ok {
		return false
	}
	v := n &^ 7
	var sum float64
	if useAVX512 {
		sum = softmaxExpAVX512(v, unsafe.SliceData(dst), unsafe.SliceData(src), m)
	} else {
		sum = softmaxExpAVX2(v, unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	finishSoftmaxRow(dst[:n], src, v, m, sum)
	return true
}

// softmaxColsVector is softmaxStrided on the eight columns at base, ...,
// base+7, each n values stride apart, exactly as the scalar loop does each.
// It reports false, having written nothing, where it does not serve: no
// AVX-512, or a NaN in one of the columns.
func softmaxColsVector(dst, src []float32, base, n, stride int) bool {
	end := base + (n-1)*stride + 8
	if !useAVX512 || n < 1 || stride < 8 || base < 0 || end > len(src) || end > len(dst) {
		return false
	}
	return !softmaxColsAVX512(n, stride, &dst[base], &src[base])
}

// softmax4RowsVector is softmaxRowVector on the four rows that src and dst
// hold, their additions overlapping; it declines all four if one has a NaN.
func softmax4RowsVector(dst, src []float32) bool {
	n := len(src) / 4
	if !useAVX512 || n < 16 || len(src) != 4*n || len(dst) != len(src) {
		return false
	}
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
	if useAVX512 {
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
	if useAVX512 {
		scaleRowAVX512(v, unsafe.SliceData(dst), inv)
	} else {
		scaleRowAVX2(v, unsafe.SliceData(dst), inv)
	}
	for k := v; k < len(dst); k++ {
		dst[k] = float32(float64(dst[k]) * inv)
	}
}

// softmax64RowVector replaces row by its softmax exactly as softmaxRow's
// loop does (the same maximum, exponentials, order of addition and
// divisions). It reports false, having changed nothing, where it does not
// serve: no AVX-512, a row shorter than 8, or a NaN in the row.
func softmax64RowVector(row []float64) bool {
	n := len(row)
	if !useAVX512 || n < 8 {
		return false
	}
	v := n &^ 7
	m, nan := maxRow64AVX512(v, unsafe.SliceData(row))
	for _, s := range row[v:] {
		nan = nan || s != s
		m = math.Max(m, s)
	}
	if nan {
		return false
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
	return true
}
