//go:build !noasm

package vec

// SumF64 is row's sum in float64; see sum.go.
func SumF64(row []float32) float64 {
	n := len(row) &^ 15
	if !HasFMA || n == 0 {
		return sumF64Ref(row)
	}
	s := sumF64AVX(n, &row[0])
	for _, v := range row[n:] {
		s += float64(v)
	}
	return s
}

// sum_amd64.s (AVX)

//go:noescape
func sumF64AVX(n int, row *float32) float64
