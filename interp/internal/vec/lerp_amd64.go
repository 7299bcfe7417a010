//go:build !noasm

package vec

import "unsafe"

//go:noescape
func lerpRowAVX512(n int, dst *float32, row *float64, rowLen int, i0, i1 *int32, w0, w1 *float64)

// LerpRow is lerpRowRef: 8 outputs a step in AVX-512 (two gathers from
// row, the products and sums in float64 lanes), the rest in Go. Every
// index is in [0, len(row)): the gathers read nothing outside row (an
// index outside leaves its lane zero, where the reference panics).
func LerpRow(dst []float32, row []float64, i0, i1 []int32, w0, w1 []float64) {
	i0, i1, w0, w1 = i0[:len(dst)], i1[:len(dst)], w0[:len(dst)], w1[:len(dst)]
	v := 0
	if UseAVX512 && len(row) > 0 {
		v = len(dst) &^ 7
		if v > 0 {
			lerpRowAVX512(v, unsafe.SliceData(dst), unsafe.SliceData(row), len(row),
				unsafe.SliceData(i0), unsafe.SliceData(i1), unsafe.SliceData(w0), unsafe.SliceData(w1))
		}
	}
	lerpRowRef(dst[v:], row, i0[v:], i1[v:], w0[v:], w1[v:])
}
