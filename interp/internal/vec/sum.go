package vec

import "math"

// Sum family: a float32 row added in float64.
//
// SumF64(row) adds row's whole groups of 16 into 16 float64 partial sums
// (element i into sum i mod 16), folds them as four 4-lane vectors
// ((v0 + v1) + (v2 + v3), v_a holding sums 4a..4a+3), then the lanes
// ((l0 + l1) + (l2 + l3)), and adds the rest one by one.

// sumF64Ref is SumF64's reference.
func sumF64Ref(row []float32) float64 {
	n := len(row) &^ 15
	var acc [16]float64
	for i := 0; i < n; i += 16 {
		for j := range 16 {
			acc[j] += float64(row[i+j])
		}
	}
	var lane [4]float64
	for l := range lane {
		lane[l] = (acc[l] + acc[4+l]) + (acc[8+l] + acc[12+l])
	}
	s := (lane[0] + lane[1]) + (lane[2] + lane[3])
	for _, v := range row[n:] {
		s += float64(v)
	}
	return s
}

// SumSqDevF64(row, mean) is the float64 sum of (row[i] - mean)², in
// SumF64's order, each square added by a fused multiply-add: a variance's
// numerator.

// sumSqDevF64Ref is SumSqDevF64's reference.
func sumSqDevF64Ref(row []float32, mean float64) float64 {
	n := len(row) &^ 15
	var acc [16]float64
	for i := 0; i < n; i += 16 {
		for j := range 16 {
			d := float64(row[i+j]) - mean
			acc[j] = math.FMA(d, d, acc[j])
		}
	}
	var lane [4]float64
	for l := range lane {
		lane[l] = (acc[l] + acc[4+l]) + (acc[8+l] + acc[12+l])
	}
	s := (lane[0] + lane[1]) + (lane[2] + lane[3])
	for _, v := range row[n:] {
		d := float64(v) - mean
		s = math.FMA(d, d, s)
	}
	return s
}
