package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// Winograd F(2×2, 3×3) for 3×3, stride-1, undilated, ungrouped 2-D
// convolutions (Lavin & Gray 2015): each 2×2 output tile takes 16
// multiplications per channel pair instead of 36. The weights are
// transformed once (U = G·g·Gᵀ) into 16 packed cout×cin matrices; each run
// transforms 4×4 input tiles (V = Bᵀ·d·B), does 16 GEMMs M = U·V, and
// transforms back (Y = Aᵀ·M·A).

// winogradMinChannels is where Winograd starts to beat im2col on
// BenchmarkConv3x3: with fewer channels the tile transforms cost more than
// the multiplications they save.
var winogradMinChannels = 64

// winogradOK reports a convolution Winograd serves, and that is big enough
// for the transforms to pay.
func winogradOK(g *geom3, groups, cin, cout int) bool {
	return hasFMA && groups == 1 && g.in[0] == 1 && g.k == [3]int{1, 3, 3} &&
		g.s == [3]int{1, 1, 1} && g.d == [3]int{1, 1, 1} && cin >= winogradMinChannels && cout >= winogradMinChannels &&
		g.out[1] >= 4 && g.out[2] >= 4
}

// winogradWeights returns the transformed weight matrices of the step's
// constant weights (16 for F(2×2), 36 for F(4×4) when big4 says so), made
// on first use; nil when the memory budget refuses.
func (x *exec) winogradWeights(w []float32, cout, cin int, big4 bool) []*packedA {
	if x.s.wino != nil {
		return x.s.wino
	}
	ne, kernel := 16, winogradKernel
	if big4 {
		ne, kernel = 36, wino4Kernel
	}
	size := int64(ne) * int64((cout+gemmMR-1)/gemmMR*gemmMR) * int64(cin) * 4
	if x.p.packedBytes+size > maxPackedBytes || x.p.pool.budget.tryCharge("winograd weights", size) != nil {
		return nil
	}
	x.p.packedBytes += size
	x.s.wino = winogradPack(w, cout, cin, ne, kernel)
	return x.s.wino
}

// winogradPack transforms every 3×3 kernel g of w (cout×cin×3×3) into
// U = G·g·Gᵀ (ne elements, written by kernel) and writes element e of it
// straight into the packed GEMM panels of matrix e (as newPackedA lays them
// out): row panel by row panel, so each matrix is written front to back.
func winogradPack(w []float32, cout, cin, ne int, kernel func(k []float32, dst [][]float32, at int)) []*packedA {
	mp := (cout + gemmMR - 1) / gemmMR * gemmMR
	u := make([]*packedA, ne)
	for e := range u {
		u[e] = &packedA{m: cout, k: cin}
		for pc := 0; pc < cin; pc += gemmKC {
			u[e].blocks = append(u[e].blocks, make([]float32, mp*min(gemmKC, cin-pc)))
		}
	}
	panels := mp / gemmMR
	parallelFor(panels, gemmMR*cin*16, func(p0, p1 int) {
		dst := make([][]float32, ne)
		for co0 := p0 * gemmMR; co0 < p1*gemmMR; co0 += gemmMR {
			rows := min(gemmMR, cout-co0)
			for pc := 0; pc < cin; pc += gemmKC {
				kb := min(gemmKC, cin-pc)
				for e := range dst {
					dst[e] = u[e].blocks[pc/gemmKC][co0*kb : (co0+gemmMR)*kb]
				}
				// Row by row inside each k step, so the writes of a step
				// fill one cache line of each matrix.
				for p := 0; p < kb; p++ {
					for i := 0; i < rows; i++ {
						at := ((co0+i)*cin + pc + p) * 9
						kernel(w[at:at+9], dst, p*gemmMR+i)
					}
				}
			}
		}
	})
	return u
}

// winogradKernel writes element e of U = G·g·Gᵀ for the 3×3 kernel k
// into dst[e][at].
func winogradKernel(k []float32, dst [][]float32, at int) {
	k = k[:9]
	// t = G·g (4×3), then t·Gᵀ (4×4).
	var t [4][3]float32
	for j := 0; j < 3; j++ {
		g0, g1, g2 := k[j], k[3+j], k[6+j]
		t[0][j] = g0
		t[1][j] = (g0 + g1 + g2) * 0.5
		t[2][j] = (g0 - g1 + g2) * 0.5
		t[3][j] = g2
	}
	for r := 0; r < 4; r++ {
		a, b, c := t[r][0], t[r][1], t[r][2]
		dst[r*4][at] = a
		dst[r*4+1][at] = (a + b + c) * 0.5
		dst[r*4+2][at] = (a - b + c) * 0.5
		dst[r*4+3][at] = c
	}
}

// convWinograd computes one image's convolution y (cout planes) from x
// (cin planes), adding the bias and clamping as ep says, with F(2×2) tiles
// (u holds 16 transformed weight matrices) or F(4×4) (36).
//
// Both transforms work on whole rows of tiles: the horizontal half of each
// transform reads a row once, and the vertical half is vector arithmetic
// over every tile at once. The input transform writes straight into the
// GEMM's packed panels; the output transform interleaves the columns back
// into rows.
func convWinograd(x *exec, g *geom3, u []*packedA, xs, ys, bias []float32, cin, cout int, ep clampEp) {
	f := winoF2
	if len(u) == 36 {
		f = winoF4
	}
	H, W := g.in[1], g.in[2]
	OH, OW := g.out[1], g.out[2]
	TH, TW := (OH+f.tile-1)/f.tile, (OW+f.tile-1)/f.tile
	T := TH * TW
	// V goes straight into the GEMM's packed B panels (one cin×T matrix
	// per transform element), so the products read it without copying it.
	lay := packedBLayout{k: cin, n: T}
	size, ms := winoStrides(lay, cout)
	v := x.scratch(len(u) * size)
	m := x.scratch(len(u) * ms)
	defer x.release(v)
	defer x.release(m)
	in := f.input(H, W, g.pb[1], g.pb[2], TH, TW)
	parallelFor(cin, T*f.inCost, func(c0, c1 int) {
		rows := getPack(in.scratchLen())
		defer packPool.Put(rows)
		for ci := c0; ci < c1; ci++ {
			in.transform(xs[ci*H*W:(ci+1)*H*W], v, size, lay, ci, *rows)
		}
	})
	winoProducts(u, v, size, m, ms, lay, cout)
	parallelFor(cout, T*f.outCost, func(c0, c1 int) {
		tmp := getPack(f.outScratch * T)
		defer packPool.Put(tmp)
		for co := c0; co < c1; co++ {
			var bv float32
			if bias != nil {
				bv = bias[co]
			}
			f.output(m[co*T:], ms, TH, TW, OH, OW, bv, ep.at(co*OH*OW), ys[co*OH*OW:(co+1)*OH*OW], *tmp)
		}
	})
}

// winoForm is one Winograd tiling: its output tile side, the costs per
// tile of its transforms (for parallelFor), the output transform's scratch
// per tile, and its two transforms.
type winoForm struct {
	tile, inCost, outCost, outScratch int
	input                             func(H, W, py, px, TH, TW int) winoTransformer
	output                            func(m []float32, stride, TH, TW, OH, OW int, bv float32, ep clampEp, out, scratch []float32)
}

// winoTransformer is an input transform over one plane's tiles.
type winoTransformer interface {
	scratchLen() int
	transform(plane, v []float32, size int, lay packedBLayout, ci int, scratch []float32)
}

var (
	winoF2 = winoForm{tile: 2, inCost: 64, outCost: 32, outScratch: 10, output: winoOutput,
		input: func(H, W, py, px, TH, TW int) winoTransformer {
			return winoInput{H: H, W: W, py: py, px: px, TH: TH, TW: TW}
		}}
	winoF4 = winoForm{tile: 4, inCost: 200, outCost: 150, outScratch: 28, output: wino4Output,
		input: func(H, W, py, px, TH, TW int) winoTransformer {
			return wino4Input{H: H, W: W, py: py, px: px, TH: TH, TW: TW}
		}}
)

// winoProducts does the GEMMs M_e = U_e·V_e, one per transform element
// e: u[e] is cout×cin, V_e the packed matrix at v[e·vs:] (lay.k×lay.n),
// M_e goes to m[e·ms:]. The products are independent: one task each, so
// even small tile counts keep every core busy.
func winoProducts(u []*packedA, v []float32, vs int, m []float32, ms int, lay packedBLayout, cout int) {
	size, T, cin := lay.size(), lay.n, lay.k
	parallelTasks(len(u), workersFor(len(u), cout*cin*T/16), func(_, e int) {
		pa, ve := u[e], v[e*vs:][:size]
		gemmCoreP(cout, T, cin, m[e*ms:][:cout*T], T, 0,
			func(pc, ic, _, kb int) []float32 { return pa.blocks[pc/gemmKC][ic*kb:] },
			func(pc, jc, kb, _ int, _ []float32) []float32 { return lay.panel(ve, pc, jc, kb) }, nil)
	})
}

// winoSkew is how many floats apart the transforms' matrices sit beyond
// their length: packed panels are multiples of 4 KB, so matrices laid end to
// end would map every stream of a transform to the same cache sets.
var winoSkew = 16

// winoStrides returns how far apart the transformed inputs (packed as lay)
// and the products (cout×lay.n) are stored.
func winoStrides(lay packedBLayout, cout int) (vs, ms int) {
	return lay.size() + winoSkew, cout*lay.n + winoSkew
}

// winoInput is the geometry of one input plane's 4×4 tiles (2 apart,
// starting at -py, -px).
type winoInput struct {
	H, W, py, px, TH, TW int
}

// scratchLen is the scratch transform needs: the horizontal transforms
// (4 rows of TW) of every padded input row.
func (w winoInput) scratchLen() int { return 8 * (w.TH + 1) * w.TW }

// transform writes V = Bᵀ·d·B of every tile of input channel ci's plane:
// element e of tile t goes to row ci, column t of matrix e, each matrix
// packed as lay says in v[e*size:].
func (w winoInput) transform(plane, v []float32, size int, lay packedBLayout, ci int, scratch []float32) {
	TW, TH := w.TW, w.TH
	// hr[((p*4+j)*(TH+1)+k)*TW + t] is column j of d·B for tile t of
	// padded row 2k+p: even and odd rows apart, so that rows 2ty..2ty+3 of
	// every tile row are the same offsets into four planes.
	plen := (TH + 1) * TW
	hr := scratch[:8*plen]
	for r := 0; r < 2*TH+2; r++ {
		p, k := r%2, r/2
		h := func(j int) []float32 { return hr[(p*4+j)*plen+k*TW:][:TW] }
		iy := r - w.py
		if iy < 0 || iy >= w.H {
			for j := range 4 {
				clear(h(j))
			}
			continue
		}
		w.rowTransform(plane[iy*w.W:(iy+1)*w.W], h(0), h(1), h(2), h(3))
	}
	// Bᵀ·(d·B) down every tile row at once: rows a, b, c, d of the tiles
	// (padded rows 2ty..2ty+3) give a-c, b+c, c-b and b-d, written 16
	// tiles at a time into the packed panels; the last panel is padded
	// with zeros.
	T := TH * TW
	for j := 0; j < 4; j++ {
		ev, od := hr[j*plen:(j+1)*plen], hr[(4+j)*plen:(5+j)*plen]
		a, b, c, d := ev[:T], od[:T], ev[TW:TW+T], od[TW:TW+T]
		// Row ci of matrices j, 4+j, 8+j and 12+j, 16 columns at a time.
		v0, v1, v2, v3 := v[j*size:], v[(4+j)*size:], v[(8+j)*size:], v[(12+j)*size:]
		for c0 := 0; c0 < T; c0 += gemmNR {
			off := lay.at(ci, c0)
			if c0+gemmNR <= T {
				vec.WinoCol(a[c0:], b[c0:], c[c0:], d[c0:], v0[off:][:gemmNR], v1[off:][:gemmNR], v2[off:][:gemmNR], v3[off:][:gemmNR])
				continue
			}
			n := T - c0
			o := [4][]float32{v0[off:][:gemmNR], v1[off:][:gemmNR], v2[off:][:gemmNR], v3[off:][:gemmNR]}
			vec.WinoCol(a[c0:T], b[c0:T], c[c0:T], d[c0:T], o[0][:n], o[1][:n], o[2][:n], o[3][:n])
			for i := range o {
				clear(o[i][n:])
			}
		}
	}
}

// rowTransform computes d·B along one input row for every tile: with e[t],
// o[t] the row's columns 2t-px and 2t-px+1 (0 in the padding), tile t's
// four columns are e[t]-e[t+1], o[t]+e[t+1], e[t+1]-o[t] and o[t]-o[t+1].
// Tiles whose columns all lie inside the row go through the vector kernel.
func (w winoInput) rowTransform(row, h0, h1, h2, h3 []float32) {
	t0 := min((w.px+1)/2, len(h0)) // the first tile starting inside the row
	done := t0
	if t0 < len(h0) {
		done += vec.WinoRow(row[2*t0-w.px:], h0[t0:], h1[t0:], h2[t0:], h3[t0:])
	}
	col := func(c int) float32 {
		if c >= 0 && c < len(row) {
			return row[c]
		}
		return 0
	}
	for t := 0; t < len(h0); t++ {
		if t == t0 && done > t0 {
			if t = done; t >= len(h0) {
				break
			}
		}
		c := 2*t - w.px
		e0, o0, e1, o1 := col(c), col(c+1), col(c+2), col(c+3)
		h0[t], h1[t], h2[t], h3[t] = e0-e1, o0+e1, e1-o0, o0-o1
	}
}

// winoOutput writes Y = Aᵀ·M·A of every tile of one output plane, plus bv
// and ep's residual, clamped as ep says: element e of tile (ty, tx) is read
// from m[e*stride + ty*TW + tx]. scratch holds 10·TH·TW floats.
func winoOutput(m []float32, stride, TH, TW, OH, OW int, bv float32, ep clampEp, out, scratch []float32) {
	T := TH * TW
	var t [8][]float32
	for i := range t {
		t[i] = scratch[i*T : (i+1)*T]
	}
	even, odd := scratch[8*T:9*T], scratch[9*T:10*T]
	s := func(i, j int) []float32 { return m[(i*4+j)*stride:][:T] }
	lo, hi := clampBounds(ep)
	// Aᵀ·M for every tile at once: rows s0+s1+s2 and s1-s2-s3 of each of
	// the 4 columns.
	for j := 0; j < 4; j++ {
		vecAdd3(t[j], s(0, j), s(1, j), s(2, j))
		vecSubSub(t[4+j], s(1, j), s(2, j), s(3, j))
	}
	for i := 0; i < 2; i++ {
		// (Aᵀ·M)·A: columns c0+c1+c2 and c1-c2-c3, for output row 2ty+i.
		c := t[4*i : 4*i+4]
		vecAdd3(even, c[0], c[1], c[2])
		vecSubSub(odd, c[1], c[2], c[3])
		for ty := 0; ty < TH; ty++ {
			oy := 2*ty + i
			if oy >= OH {
				break
			}
			row := out[oy*OW : (oy+1)*OW]
			interleave(row, even[ty*TW:(ty+1)*TW], odd[ty*TW:(ty+1)*TW])
		}
	}
	clampPlane(out[:OH*OW], ep, bv, lo, hi)
}

// useWinograd turns the Winograd path on (tests compare both ways).
var useWinograd = true

// winogradFor returns the transformed weights when the convolution takes
// the Winograd path: constant weights only, since they are transformed once,
// and from a Program's second run on, since the transform costs more than
// one run saves (a verification or `check` runs once).
func winogradFor(x *exec, g *geom3, groups, cin, cout int, w *tensor) []*packedA {
	if !useWinograd || x.p.runs < 2 || !winogradOK(g, groups, cin, cout) || len(x.s.in) < 2 || x.s.in[1] < 0 || x.p.consts[x.s.in[1]] == nil {
		return nil
	}
	return x.winogradWeights(w.f, cout, cin, wino4OK(g))
}

// clampPlane applies the epilogue every convolution path shares to one
// finished output plane, in one call rather than one a row: rows of a
// small map (7 wide) are shorter than a vector.
func clampPlane(plane []float32, ep clampEp, bv, lo, hi float32) {
	var res []float32
	if ep.res != nil {
		res = ep.res[:len(plane)]
	}
	clampRow(plane, res, bv, lo, hi)
}
