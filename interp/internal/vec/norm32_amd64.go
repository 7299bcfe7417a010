//go:build !noasm

package vec

import "unsafe"

// act32_avx512_amd64.s, act32_avx2_amd64.s (generated): LayerNorm rows.

//go:noescape
func lnCenter32AVX512(n int, dst, sq, src *float32, m float32)

//go:noescape
func lnCenter32AVX2(n int, dst, sq, src *float32, m float32)

//go:noescape
func lnScale32AVX512(n int, dst, scale, bias *float32, den float32)

//go:noescape
func lnScale32AVX2(n int, dst, scale, bias *float32, den float32)

//go:noescape
func lnAffine64AVX512(n int, dst, src, scale, bias *float32, m, inv float64)

//go:noescape
func lnAffine64AVX2(n int, dst, src, scale, bias *float32, m, inv float64)

// rowLanes is the lanes of the float32 row routines at this level, 0
// without them.
func rowLanes() int {
	switch {
	case UseAVX512:
		return 16
	case HasFMA:
		return 8
	}
	return 0
}

// LNCenter sets dst[i] = src[i] - m and sq[i] = dst[i]·dst[i] for
// i < len(dst).
func LNCenter(dst, sq, src []float32, m float32) {
	src, sq = src[:len(dst)], sq[:len(dst)]
	n := 0
	if l := rowLanes(); l > 0 {
		if n = len(dst) &^ (l - 1); n > 0 {
			k := lnCenter32AVX2
			if l == 16 {
				k = lnCenter32AVX512
			}
			k(n, unsafe.SliceData(dst), unsafe.SliceData(sq), unsafe.SliceData(src), m)
		}
	}
	lnCenterRef(dst[n:], sq[n:], src[n:], m)
}

// LNScale sets dst[i] = dst[i]/den·scale[i] + bias[i], each operation
// rounded to float32 on its own, for i < len(dst).
func LNScale(dst, scale, bias []float32, den float32) {
	scale, bias = scale[:len(dst)], bias[:len(dst)]
	n := 0
	if l := rowLanes(); l > 0 {
		if n = len(dst) &^ (l - 1); n > 0 {
			k := lnScale32AVX2
			if l == 16 {
				k = lnScale32AVX512
			}
			k(n, unsafe.SliceData(dst), unsafe.SliceData(scale), unsafe.SliceData(bias), den)
		}
	}
	lnScaleRef(dst[n:], scale[n:], bias[n:], den)
}

// LNAffine64 sets dst[i] = float32((src[i] - m)·inv·scale[i] + bias[i]),
// computed in float64, each operation rounded on its own, for
// i < len(dst).
func LNAffine64(dst, src, scale, bias []float32, m, inv float64) {
	src, scale, bias = src[:len(dst)], scale[:len(dst)], bias[:len(dst)]
	n := 0
	if l := rowLanes() / 2; l > 0 {
		if n = len(dst) &^ (l - 1); n > 0 {
			k := lnAffine64AVX2
			if l == 8 {
				k = lnAffine64AVX512
			}
			k(n, unsafe.SliceData(dst), unsafe.SliceData(src), unsafe.SliceData(scale), unsafe.SliceData(bias), m, inv)
		}
	}
	lnAffine64Ref(dst[n:], src[n:], scale[n:], bias[n:], m, inv)
}
