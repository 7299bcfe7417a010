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

// gridBilinear holds a block's bilinear 2-D taps as vec.Quads reads them:
// row t of off and w (t = 2·row tap + column tap) at stride gridBlock. A
// tap gridSum skips (outside the plane under zero padding, or of weight 0)
// is an offset of -1 with weight 0: its +0 product leaves the sums as
// gridSum leaves them by skipping it.
type gridBilinear struct {
	off [4 * gridBlock]int32
	w   [4 * gridBlock]float64
}

// set lays out point i's taps (two axes of two taps) over rows of length ld.
func (g *gridBilinear) set(i int, taps [][]gridTap, ld int) {
	for r, ty := range taps[0][:2] {
		for c, tx := range taps[1][:2] {
			at := (2*r+c)*gridBlock + i
			if ty.i < 0 || ty.w == 0 || tx.i < 0 || tx.w == 0 {
				g.off[at], g.w[at] = -1, 0
				continue
			}
			g.off[at], g.w[at] = int32(ty.i*ld+tx.i), ty.w*tx.w
		}
	}
}
