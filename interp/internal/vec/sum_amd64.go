//go:build !noasm

package vec

import "math"

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

// SumSqDevF64 is the sum of row's squared deviations from mean in
// float64; see sum.go.
func SumSqDevF64(row []float32, mean float64) float64 {
	n := len(row) &^ 15
	if !HasFMA || n == 0 {
		return sumSqDevF64Ref(row, mean)
	}
	s := sumSqDevF64AVX(n, &row[0], mean)
	for _, v := range row[n:] {
		d := float64(v) - mean
		s = math.FMA(d, d, s)
	}
	return s
}

//go:noescape
func sumSqDevF64AVX(n int, row *float32, mean float64) float64
