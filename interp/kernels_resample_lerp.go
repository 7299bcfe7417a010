package interp

// lerpTaps are a row's W taps of at most two non-zero weights each, laid
// out for vec.LerpRow: an output of one tap gets a second of weight 0 at
// the same place. On a finite row that adds ±0 to (0 + w·x), which is
// never -0, so it changes no bit of the result.
type lerpTaps struct {
	i0, i1 []int32
	w0, w1 []float64
}

// newLerpTaps lays out tx, or returns nil when an output has more than
// two taps (cubic).
func newLerpTaps(tx []compactTap) *lerpTaps {
	n := len(tx)
	l := &lerpTaps{make([]int32, n), make([]int32, n), make([]float64, n), make([]float64, n)}
	for o, c := range tx {
		switch c.n {
		case 0:
		case 1:
			l.i0[o], l.i1[o], l.w0[o] = c.i[0], c.i[0], c.w[0]
		case 2:
			l.i0[o], l.i1[o], l.w0[o], l.w1[o] = c.i[0], c.i[1], c.w[0], c.w[1]
		default:
			return nil
		}
	}
	return l
}

// finite64 reports that no value of row is infinite or NaN (a zero weight
// times one would be NaN where the taps leave it out).
func finite64(row []float64) bool {
	for _, v := range row {
		if v-v != 0 { // NaN for an infinity or a NaN
			return false
		}
	}
	return true
}
