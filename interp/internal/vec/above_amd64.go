//go:build !noasm

package vec

import "unsafe"

// The kernels look at n entries (a multiple of 16, or of 8 for AVX2) and
// return the first index whose test holds, or n. below selects the test:
// 0 for !(v <= bar), 1 for !(v >= bar).

//go:noescape
func nextAVX512(n int, row *float32, bar float32, below int) int

//go:noescape
func nextAVX2(n int, row *float32, bar float32, below int) int

// NextAbove is nextAboveRef: 16 entries a step in AVX-512 (8 in AVX2).
func NextAbove(row []float32, bar float32) int { return nextIndex(row, bar, 0) }

// NextBelow is nextBelowRef, in the same steps.
func NextBelow(row []float32, bar float32) int { return nextIndex(row, bar, 1) }

func nextIndex(row []float32, bar float32, below int) int {
	v := 0
	switch {
	case UseAVX512:
		if v = len(row) &^ 15; v > 0 {
			if i := nextAVX512(v, unsafe.SliceData(row), bar, below); i < v {
				return i
			}
		}
	case HasFMA:
		if v = len(row) &^ 7; v > 0 {
			if i := nextAVX2(v, unsafe.SliceData(row), bar, below); i < v {
				return i
			}
		}
	}
	if below == 0 {
		return v + nextAboveRef(row[v:], bar)
	}
	return v + nextBelowRef(row[v:], bar)
}
