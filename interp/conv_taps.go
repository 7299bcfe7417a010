package interp

// A dilated convolution over a small map has taps that reach the input for
// only part of the outputs (deeplabv3's ASPP: a 3×3 window dilated 12 over
// a 16×16 map reads the input with its off-centre taps for 4 of the 16
// output rows or columns). As one im2col GEMM, three quarters of its
// products are weights times the padding's zeros. Run tap by tap instead,
// each tap's cout×cin weights meet only the outputs whose input position
// lies inside the map:
//
//	y[:, region(t)] += W_t · X[:, region(t) shifted by t]
//
// The skipped products are w·0 with finite w, exact zeros, so the sums
// are the same convolution's, added in another order (tap by tap instead
// of channel by channel): they agree within rounding.

// convTap is one live tap of the window: its weights, packed, and the
// output box where it meets the input.
type convTap struct {
	k      [3]int // kernel offsets (kz, ky, kx)
	lo, hi [3]int // the outputs o in [lo, hi) on each axis whose input is inside
	pa     *packedA
}

// convTaps caches a convolution's taps while its weights are the constant
// they were cut from.
type convTaps struct {
	key  geom3
	from []float32
	taps []convTap
}

// tapsByTap turns the tap-by-tap convolution on (tests compare both ways).
var tapsByTap = true

// tapBoxes returns every tap whose box is not empty, and the number of
// products per input and output channel they cost.
func (g *geom3) tapBoxes() (taps []convTap, work int) {
	for kz := range g.k[0] {
		for ky := range g.k[1] {
			for kx := range g.k[2] {
				t := convTap{k: [3]int{kz, ky, kx}}
				n := 1
				for a := range 3 {
					t.lo[a], t.hi[a] = validRange(g.out[a], g.s[a], t.k[a]*g.d[a]-g.pb[a], g.in[a])
					n *= t.hi[a] - t.lo[a]
				}
				if n > 0 {
					taps = append(taps, t)
					work += n
				}
			}
		}
	}
	return taps, work
}

// convByTaps returns the taps to run g with, or nil when the im2col GEMM
// is the better plan: the taps must skip at least half of its products,
// the convolution be ungrouped with constant, finite weights (an infinite
// weight times a pad's zero is NaN in the plain products).
func (x *exec) convByTaps(g *geom3, w *tensor, groups, cin, cout int) []convTap {
	if !tapsByTap || !hasFMA || groups != 1 || len(w.f) == 0 || x.s.in[1] < 0 || x.p.consts[x.s.in[1]] == nil {
		return nil
	}
	if c := x.s.taps; c != nil && c.key == *g && len(c.from) == len(w.f) && &c.from[0] == &w.f[0] {
		return c.taps
	}
	// A refusal is kept too, so that other convolutions do not list their
	// taps on every run.
	x.s.taps = &convTaps{key: *g, from: w.f}
	K, P := g.kernelSize(), g.outSize()
	if K == 1 {
		return nil
	}
	taps, work := g.tapBoxes()
	if len(taps) == 0 || 2*work > K*P || !x.weightsFinite(w.f) {
		return nil
	}
	size := int64(len(taps)) * int64((cout+gemmMR-1)/gemmMR*gemmMR) * int64(cin) * 4
	if x.p.packedBytes+size > maxPackedBytes || x.p.pool.budget.tryCharge("packed weights", size) != nil {
		return nil
	}
	x.p.packedBytes += size
	wt := make([]float32, cout*cin)
	for i := range taps {
		t := &taps[i]
		r := (t.k[0]*g.k[1]+t.k[1])*g.k[2] + t.k[2]
		for co := range cout {
			for ci := range cin {
				wt[co*cin+ci] = w.f[(co*cin+ci)*K+r]
			}
		}
		t.pa = newPackedA(false, cout, cin, 1, wt, cin)
	}
	x.s.taps.taps = taps
	return taps
}

// convTapsImage computes one image's convolution without its epilogue:
// y (cout×P) is the sum over the taps of each tap's weights times the
// input its box reads.
func (x *exec) convTapsImage(g *geom3, taps []convTap, xin, y []float32, cin, cout int) {
	P, inP := g.outSize(), g.inSize()
	// A tap whose box is every output (the centre tap) goes first and
	// writes y itself; reading the input in place when it meets each
	// output's own position (stride 1, no shift).
	first := -1
	for i, t := range taps {
		if t.lo == [3]int{} && t.hi == g.out {
			first = i
			break
		}
	}
	inPlace := first >= 0 && g.s == [3]int{1, 1, 1} && g.in == g.out
	for a := 0; inPlace && a < 3; a++ {
		inPlace = taps[first].k[a]*g.d[a] == g.pb[a]
	}
	if inPlace {
		t := taps[first]
		gemmSlabs(cout, P, cin, func(i, mb, j, nb int) {
			gemmPackedSerial(t.pa, i, mb, false, nb, xin[j:], P, y[i*P+j:], P, 0)
		})
		taps = append(append([]convTap(nil), taps[:first]...), taps[first+1:]...)
	} else {
		clear(y)
	}
	maxBox := 0
	for _, t := range taps {
		maxBox = max(maxBox, (t.hi[0]-t.lo[0])*(t.hi[1]-t.lo[1])*(t.hi[2]-t.lo[2]))
	}
	col := x.scratch(cin * maxBox)
	tmp := x.scratch(cout * maxBox)
	defer x.release(col)
	defer x.release(tmp)
	for _, t := range taps {
		nz, ny, nx := t.hi[0]-t.lo[0], t.hi[1]-t.lo[1], t.hi[2]-t.lo[2]
		n := nz * ny * nx
		var off [3]int
		for a := range 3 {
			off[a] = t.k[a]*g.d[a] - g.pb[a]
		}
		// Gather the input each output of the box meets through this tap
		// (every one lies inside the map).
		parallelFor(cin, n, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				plane := xin[c*inP : (c+1)*inP]
				dst := col[c*n : (c+1)*n]
				d := 0
				for oz := t.lo[0]; oz < t.hi[0]; oz++ {
					iz := oz*g.s[0] + off[0]
					for oy := t.lo[1]; oy < t.hi[1]; oy++ {
						iy := oy*g.s[1] + off[1]
						row := plane[(iz*g.in[1]+iy)*g.in[2]:]
						if g.s[2] == 1 {
							copy(dst[d:d+nx], row[t.lo[2]+off[2]:])
						} else {
							for i, ox := 0, t.lo[2]; ox < t.hi[2]; i, ox = i+1, ox+1 {
								dst[d+i] = row[ox*g.s[2]+off[2]]
							}
						}
						d += nx
					}
				}
			}
		})
		gemmSlabs(cout, n, cin, func(i, mb, j, nb int) {
			gemmPackedSerial(t.pa, i, mb, false, nb, col[j:], n, tmp[i*n+j:], n, 0)
			// Add the slab to the outputs of the box it covers.
			for r := i; r < i+mb; r++ {
				src := tmp[r*n : r*n+n]
				yr := y[r*P : (r+1)*P]
				for q := j; q < j+nb; {
					oz, rest := q/(ny*nx), q%(ny*nx)
					oy, ox := rest/nx, rest%nx
					run := min(nx-ox, j+nb-q)
					base := ((t.lo[0]+oz)*g.out[1]+t.lo[1]+oy)*g.out[2] + t.lo[2] + ox
					dst := yr[base : base+run]
					for e, v := range src[q : q+run] {
						dst[e] += v
					}
					q += run
				}
			}
		})
	}
}
