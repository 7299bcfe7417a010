//go:build !noasm

package vec

import (
	"math"
	"unsafe"
)

//go:noescape
func quadsAVX512(n int, dst, src *float32, srcLen int, off *int32, w *float64, stride int)

//go:noescape
func quadsAVX2(n int, dst, src *float32, srcLen int, off *int32, w *float64, stride int)

// Quads is quadsRef: 8 points a step in AVX-512 or AVX2 (four gathers from
// src under a mask of the offsets inside it, the products and sums in
// float64 lanes), the rest in Go.
func Quads(dst, src []float32, off []int32, w []float64, stride int) {
	checkQuads(len(dst), off, w, stride)
	v := 0
	if HasFMA && len(src) > 0 && len(src) <= math.MaxInt32 {
		if v = len(dst) &^ 7; v > 0 {
			kernel := quadsAVX2
			if UseAVX512 {
				kernel = quadsAVX512
			}
			kernel(v, unsafe.SliceData(dst), unsafe.SliceData(src), len(src), unsafe.SliceData(off), unsafe.SliceData(w), stride)
		}
	}
	if v < len(dst) {
		quadsRef(dst[v:], src, off[v:], w[v:], stride)
	}
}
