package vec

// Threshold scans: where in a row the next entry stands that might beat a
// bar, for TopK's selection. The tests are negated so that NaN, which
// compares false, always stops the scan.

// nextAboveRef is the first i with !(row[i] <= bar), or len(row).
func nextAboveRef(row []float32, bar float32) int {
	for i, v := range row {
		if !(v <= bar) {
			return i
		}
	}
	return len(row)
}

// nextBelowRef is the first i with !(row[i] >= bar), or len(row).
func nextBelowRef(row []float32, bar float32) int {
	for i, v := range row {
		if !(v >= bar) {
			return i
		}
	}
	return len(row)
}
