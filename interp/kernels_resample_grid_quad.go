package interp

// gridQuads holds, for a block of points, the taps of those whose 2-D
// taps are two rows of two reads (bilinear inside the plane, the common
// case) compactly: the channel loop then reads 48 bytes a point instead
// of a gridTaps2D, and adds the four products without loops.
type gridQuads struct {
	off [gridBlock][4]int32
	w   [gridBlock][4]float64
	is  [gridBlock]bool
}

// take records point i's taps when they are a quad.
func (q *gridQuads) take(i int, g *gridTaps2D) {
	q.is[i] = g.nrow == 2 && g.rows[0] == 2 && g.rows[1] == 2
	if !q.is[i] {
		return
	}
	for t := range 4 {
		q.off[i][t], q.w[i][t] = int32(g.off[t]), g.w[t]
	}
}

// sum is gridTaps2D.sum of a quad: each row's products added from +0,
// then the rows from +0, each product rounded to float64 on its own (a
// fused multiply-add would change the bits).
func (q *gridQuads) sum(i int, src []float32) float64 {
	o, w := &q.off[i], &q.w[i]
	p0 := float64(w[0] * float64(src[o[0]]))
	p1 := float64(w[1] * float64(src[o[1]]))
	p2 := float64(w[2] * float64(src[o[2]]))
	p3 := float64(w[3] * float64(src[o[3]]))
	return (0 + ((0 + p0) + p1)) + ((0 + p2) + p3)
}
