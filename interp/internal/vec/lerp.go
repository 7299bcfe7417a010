package vec

// Two-tap family: one output row of a linear resize along its last axis,
// from a row already interpolated along the axis before it and kept in
// float64: dst[o] = float32((0 + w0[o]·row[i0[o]]) + w1[o]·row[i1[o]]),
// the sum runResize's passes form (a product, then added to the sum that
// starts at +0), each operation rounded as the scalar code rounds it.

// lerpRowRef is the two-tap row as defined above.
func lerpRowRef(dst []float32, row []float64, i0, i1 []int32, w0, w1 []float64) {
	i0, i1, w0, w1 = i0[:len(dst)], i1[:len(dst)], w0[:len(dst)], w1[:len(dst)]
	for o := range dst {
		dst[o] = float32((0 + w0[o]*row[i0[o]]) + w1[o]*row[i1[o]])
	}
}
