package interp

import "math"

// Winograd F(4×4, 3×3): each 4×4 output tile takes 36 multiplications per
// channel pair instead of 144 (F(2×2) takes 64 for the same outputs), from
// 6×6 input tiles 4 apart. Its transforms are built on the points 0, 1, -1,
// 1/2, -2 and ∞: against the usual 0, ±1, ±2 they halve the float32 error
// (the large entries of Aᵀ, up to 8, are partly replaced by 1/2 and 1/8).
//
// As in F(2×2), the input transform writes straight into the GEMM's packed
// panels and the output transform ends in clampRow.

// wino4MinSize is the smallest output side F(4×4) takes. From 14 (16 tiles,
// one GEMM panel) it beats F(2×2) at resnet18's layers, though by less at
// 14² inside the network than alone (BenchmarkConv3x3): its transformed
// weights, 36/9 the kernel's size (F(2×2)'s 16/9), are 9.4 MB a layer there
// and do not stay cached between layers. At 7² its 4 tiles fill a quarter
// of a panel: 2.5 times slower.
var wino4MinSize = 14

// wino4OK reports whether a convolution winogradOK accepts takes F(4×4).
func wino4OK(g *geom3) bool {
	return g.out[1] >= wino4MinSize && g.out[2] >= wino4MinSize
}

// wino4Points are the finite interpolation points (∞ is the sixth).
var wino4Points = [5]float64{0, 1, -1, 0.5, -2}

// wino4BT is Bᵀ for those points (row-major 6×6): V = Bᵀ·d·B. The input
// transform below computes it factored; the tests check both against it.
var wino4BT = [6][6]float64{
	{1, -1.5, -2, 1.5, 1, 0},
	{0, -1, 0.5, 2.5, 1, 0},
	{0, 1, -2.5, 0.5, 1, 0},
	{0, -2, -1, 2, 1, 0},
	{0, 0.5, -1, -0.5, 1, 0},
	{0, 1, -1.5, -2, 1.5, 1},
}

// wino4AT is Aᵀ (4×6): row i holds p^i for each point, and 1 at ∞ in the
// last row. Y = Aᵀ·M·A.
var wino4AT = [4][6]float64{
	{1, 1, 1, 1, 1, 0},
	{0, 1, -1, 0.5, -2, 0},
	{0, 1, 1, 0.25, 4, 0},
	{0, 1, -1, 0.125, -8, 1},
}

// wino4G is G (6×3): row k is (1, p, p²)/∏(p - q) over the other points q,
// and (0, 0, 1) at ∞. U = G·g·Gᵀ.
var wino4G = func() (g [6][3]float64) {
	for k, p := range wino4Points {
		f := 1.0
		for l, q := range wino4Points {
			if l != k {
				f *= p - q
			}
		}
		g[k] = [3]float64{1 / f, p / f, p * p / f}
	}
	g[5] = [3]float64{0, 0, 1}
	return g
}()

// wino4Kernel writes element e of U = G·g·Gᵀ for the 3×3 kernel k into
// dst[e][at], computed in float64 and rounded once.
func wino4Kernel(k []float32, dst [][]float32, at int) {
	k, dst = k[:9], dst[:36]
	G := &wino4G
	var g [9]float64
	for i, v := range k {
		g[i] = float64(v)
	}
	var t [6][3]float64 // G·g
	for r := range t {
		for j := 0; j < 3; j++ {
			t[r][j] = G[r][0]*g[j] + G[r][1]*g[3+j] + G[r][2]*g[6+j]
		}
	}
	for r := range t {
		row := dst[r*6 : r*6+6]
		for c, gc := range G {
			row[c][at] = float32(t[r][0]*gc[0] + t[r][1]*gc[1] + t[r][2]*gc[2])
		}
	}
}

// wino4Input is the geometry of one input plane's 6×6 tiles (4 apart,
// starting at -py, -px).
type wino4Input struct {
	H, W, py, px, TH, TW int
}

// scratchLen is the scratch transform needs: the horizontal transforms (6
// rows of TW) of every padded input row, and rowTransform's buffer.
func (w wino4Input) scratchLen() int { return 24*w.planeLen() + 4*(roundUp(w.TW, 8)+8) }

// planeLen is the length of one of transform's 24 planes of horizontal
// transforms.
func (w wino4Input) planeLen() int { return (w.TH+1)*w.TW + 8 }

// transform writes V = Bᵀ·d·B of every tile of input channel ci's plane:
// element e of tile t goes to row ci, column t of matrix e, each matrix
// packed as lay says in v[e*size:].
func (w wino4Input) transform(plane, v []float32, size int, lay packedBLayout, ci int, scratch []float32) {
	TW, TH := w.TW, w.TH
	// hr[(p*6+j)*plen + k*TW + t] is column j of d·B for tile t of padded
	// row 4k+p: rows apart by their remainder mod 4, so that rows
	// 4ty..4ty+5 of every tile row are the same offsets into six planes.
	// Each plane ends in 8 spare floats, so the vector kernels may run
	// over whole groups of 8 past a row's or a plane's end.
	plen := w.planeLen()
	hr, ph := scratch[:24*plen], scratch[24*plen:]
	for r := 0; r < 4*TH+2; r++ {
		h := hr[(r%4)*6*plen+(r/4)*TW:]
		if iy := r - w.py; iy >= 0 && iy < w.H {
			w.rowTransform(plane[iy*w.W:(iy+1)*w.W], h, plen, ph)
		} else {
			for j := 0; j < 6; j++ {
				clear(h[j*plen:][:TW])
			}
		}
	}
	// Bᵀ·(d·B) down every tile row at once, 16 tiles at a time into the
	// packed panels; the last, partial panel is padded with zeros.
	T := TH * TW
	for j := 0; j < 6; j++ {
		var s, o [6][]float32
		// Whole panels of 16, a block of gemmNC columns a call: their
		// runs of 16 in row ci are 16·kb floats apart.
		for jc := 0; jc+gemmNR <= T; jc += gemmNC {
			chunks := min(gemmNC, T-jc) / gemmNR
			off := lay.at(ci, jc)
			gap := 16 * min(gemmKC, lay.k-ci/gemmKC*gemmKC)
			for k := range s {
				s[k] = hr[((k%4)*6+j)*plen+(k/4)*TW+jc:][:chunks*gemmNR]
				o[k] = v[(k*6+j)*size+off:][:(chunks-1)*gap+gemmNR]
			}
			wino4Panels(chunks, gap, &s, &o)
		}
		for c0 := T / gemmNR * gemmNR; c0 < T; c0 += gemmNR {
			off := lay.at(ci, c0)
			n := T - c0
			for k := range s {
				s[k] = hr[((k%4)*6+j)*plen+(k/4)*TW+c0:][:roundUp(n, 8)]
				o[k] = v[(k*6+j)*size+off:][:gemmNR]
			}
			wino4Col(roundUp(n, 8), &s, &o)
			for k := range o {
				clear(o[k][n:])
			}
		}
	}
}

// rowTransform computes d·B along one input row for every tile: tile t
// reads the row's columns 4t-px .. 4t-px+5 (0 in the padding), and column j
// of its result goes to h[j*stride+t]. The row is copied with its padding
// into buf (4·(TW+8) floats with TW rounded up to 8), so that the
// transform runs on whole vectors, past the last tile up to the next 8.
func (w wino4Input) rowTransform(row, h []float32, stride int, buf []float32) {
	TW8 := roundUp(w.TW, 8)
	padded := buf[:4*(TW8+8)]
	clear(padded[:w.px])
	copy(padded[w.px:], row)
	clear(padded[w.px+len(row):])
	wino4Row(padded, h, stride, TW8)
}

// wino4Output writes Y = Aᵀ·M·A of every tile of one output plane, plus bv
// and ep's residual, clamped as ep says: element e of tile (ty, tx) is read
// from m[e*stride + ty*TW + tx]. scratch holds 28·TH·TW floats.
func wino4Output(m []float32, stride, TH, TW, OH, OW int, bv float32, ep clampEp, out, scratch []float32) {
	T := TH * TW
	vec := func(i int) []float32 { return scratch[i*T : (i+1)*T] }
	lo, hi := clampBounds(ep)
	// Aᵀ·M for every tile at once: t[i*6+j] is row i of column j.
	for j := 0; j < 6; j++ {
		var s [6][]float32
		for k := range s {
			s[k] = m[(k*6+j)*stride:][:T]
		}
		o := [4][]float32{vec(j), vec(6 + j), vec(12 + j), vec(18 + j)}
		wino4OutVec(T, &s, &o)
	}
	for i := 0; i < 4; i++ {
		// (Aᵀ·M)·A: the four columns of output row 4ty+i.
		s := [6][]float32{vec(6 * i), vec(6*i + 1), vec(6*i + 2), vec(6*i + 3), vec(6*i + 4), vec(6*i + 5)}
		o := [4][]float32{vec(24), vec(25), vec(26), vec(27)}
		wino4OutVec(T, &s, &o)
		// Row ty of the tiles becomes rows[4·TW·ty:], all at once (the
		// columns just read are free for it), then goes to its place.
		rows := scratch[6*i*T : (6*i+4)*T]
		interleave4(rows, o[0], o[1], o[2], o[3])
		for ty := 0; ty < TH; ty++ {
			oy := 4*ty + i
			if oy >= OH {
				break
			}
			row := out[oy*OW : (oy+1)*OW]
			copy(row, rows[4*TW*ty:])
		}
	}
	clampPlane(out[:OH*OW], ep, bv, lo, hi)
}

// clampBounds is the clamp ep applies, ±Inf when it applies none.
func clampBounds(ep clampEp) (lo, hi float32) {
	if ep.clamp {
		return ep.lo, ep.hi
	}
	return float32(math.Inf(-1)), float32(math.Inf(1))
}
