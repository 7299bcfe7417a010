package vec

// SumRowsF64 sets dst[r] to SumF64 of v's r-th row of count elements,
// for every r in dst: one call for many short rows (a reduction over a
// last axis of 56) instead of one a row.
func SumRowsF64(v []float32, count int, dst []float64) {
	if len(dst) == 0 {
		return
	}
	if count > 0 && len(v) >= len(dst)*count && sumRowsAsm(v, count, dst) {
		return
	}
	for r := range dst {
		dst[r] = SumF64(v[r*count : (r+1)*count])
	}
}
