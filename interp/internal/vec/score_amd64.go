//go:build !noasm

package vec

import "unsafe"

// ScoreRows is scoreRowsRef in one AVX-512 call where there is AVX-512
// (len(s) a multiple of n; mask nil or n values).
func ScoreRows(s []float32, n int, c float32, op ScoreOp, mask []float32) {
	if n <= 0 || len(s) < n {
		return
	}
	if !UseAVX512 {
		scoreRowsRef(s, n, c, op, mask)
		return
	}
	var mp *float32
	if mask != nil {
		mp = unsafe.SliceData(mask[:n]) // bounds check: the assembly trusts n
	}
	scoreRowsAVX512(len(s)/n, n, unsafe.SliceData(s), c, int(op), mp)
}

//go:noescape
func scoreRowsAVX512(rows, n int, s *float32, c float32, op int, mask *float32)
