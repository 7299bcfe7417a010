//go:build !amd64 || noasm

package vec

// LerpRow is lerpRowRef.
func LerpRow(dst []float32, row []float64, i0, i1 []int32, w0, w1 []float64) {
	lerpRowRef(dst, row, i0, i1, w0, w1)
}
