package vec

// Softmax in float32 lanes: each row's maximum, e^(x - max) by expNeg32
// (Cephes expf, within about an ulp of the correctly rounded float32
// value), their sum in float64 (SumF64's order), each exponential times
// 1/sum in float64, rounded once. For an attention's scores, which are
// rounded to float32 before the softmax: the float64-lane softmax
// (SoftmaxRows) costs twice as much for digits the scores do not hold.

// SoftmaxRows32 sets each run of n values of s to its softmax as
// softmaxRows32Ref does. A row with a NaN takes the float64 softmax
// (softmaxStridedRef), which makes it NaN as the other softmaxes do.
func SoftmaxRows32(s []float32, n int) {
	if n <= 0 {
		return
	}
	for r := 0; r+n <= len(s); r += n {
		row := s[r : r+n]
		m, ok := rowMax32(row)
		if !ok {
			softmaxStridedRef(row, row, 0, n, 1)
			continue
		}
		ExpShift32(row, row, m)
		scaleRow32(row, 1/SumF64(row))
	}
}

// softmaxRows32Ref is SoftmaxRows32's reference.
func softmaxRows32Ref(s []float32, n int) {
	if n <= 0 {
		return
	}
	for r := 0; r+n <= len(s); r += n {
		row := s[r : r+n]
		m, ok := rowMax32Ref(row)
		if !ok {
			softmaxStridedRef(row, row, 0, n, 1)
			continue
		}
		expShift32Ref(row, row, m)
		inv := 1 / sumF64Ref(row)
		for j, v := range row {
			row[j] = float32(float64(v) * inv)
		}
	}
}

// rowMax32Ref is the maximum of row, ok false if it holds a NaN.
func rowMax32Ref(row []float32) (m float32, ok bool) {
	m = row[0]
	for _, v := range row {
		if v != v {
			return 0, false
		}
		m = max(m, v)
	}
	return m, true
}
