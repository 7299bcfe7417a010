package interp

import (
	"fmt"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"
	"runtime"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// geom3 describes a convolution-like window over up to three spatial axes.
// 1-D and 2-D problems are padded to 3-D with leading axes of size 1, so
// one loop nest serves every rank.
type geom3 struct {
	in, k, out [3]int
	s, d, pb   [3]int
	pe         [3]int
}

// newGeom3 fills the spatial geometry of an input of shape (N, C, spatial...)
// from attributes that are either empty (defaults) or one value per axis.
func newGeom3(xshape []int, k, strides, dilations, padsBegin, padsEnd []int64) (*geom3, error) {
	sp := len(xshape) - 2
	if sp < 1 || sp > 3 {
		return nil, fmt.Errorf("input has shape %v: want 1 to 3 spatial axes after (N, C)", xshape)
	}
	if len(k) != sp {
		return nil, fmt.Errorf("kernel has %d spatial axes, input %v has %d", len(k), xshape, sp)
	}
	g := &geom3{}
	for i := range 3 {
		g.in[i], g.k[i], g.s[i], g.d[i] = 1, 1, 1, 1
	}
	off := 3 - sp
	get := func(name string, v []int64, def int64, min int64) ([]int64, error) {
		if len(v) == 0 {
			v = make([]int64, sp)
			for i := range v {
				v[i] = def
			}
		}
		if len(v) != sp {
			return nil, fmt.Errorf("%s %v: want %d values, one per spatial axis", name, v, sp)
		}
		for _, x := range v {
			if x < min || x > 1<<24 {
				return nil, fmt.Errorf("%s %v: values must be >= %d", name, v, min)
			}
		}
		return v, nil
	}
	var err error
	if k, err = get("kernel", k, 1, 1); err != nil {
		return nil, err
	}
	if strides, err = get("strides", strides, 1, 1); err != nil {
		return nil, err
	}
	if dilations, err = get("dilations", dilations, 1, 1); err != nil {
		return nil, err
	}
	if padsBegin, err = get("pads_begin", padsBegin, 0, 0); err != nil {
		return nil, err
	}
	if padsEnd, err = get("pads_end", padsEnd, 0, 0); err != nil {
		return nil, err
	}
	for i := range sp {
		g.in[off+i] = xshape[2+i]
		g.k[off+i] = int(k[i])
		g.s[off+i] = int(strides[i])
		g.d[off+i] = int(dilations[i])
		g.pb[off+i] = int(padsBegin[i])
		g.pe[off+i] = int(padsEnd[i])
	}
	return g, nil
}

func (g *geom3) kernelSize() int { return g.k[0] * g.k[1] * g.k[2] }
func (g *geom3) inSize() int     { return g.in[0] * g.in[1] * g.in[2] }
func (g *geom3) outSize() int    { return g.out[0] * g.out[1] * g.out[2] }

// convOut sets the output size of a convolution (floor mode).
func (g *geom3) convOut() error {
	for i := range 3 {
		ext := (g.k[i]-1)*g.d[i] + 1
		span := g.in[i] + g.pb[i] + g.pe[i] - ext
		if span < 0 {
			return fmt.Errorf("kernel extent %d is larger than the padded input %d on spatial axis %d", ext, g.in[i]+g.pb[i]+g.pe[i], i)
		}
		g.out[i] = span/g.s[i] + 1
	}
	return nil
}

// outShape is (n, c, out spatial...) with the rank of x.
func (g *geom3) outShape(xshape []int, n, c int) []int {
	sp := len(xshape) - 2
	out := []int{n, c}
	return append(out, g.out[3-sp:]...)
}

// validRange returns the o in [0, n) for which o*s + off lies in [0, size).
func validRange(n, s, off, size int) (lo, hi int) {
	if off < 0 {
		lo = (-off + s - 1) / s
	}
	if size-1-off < 0 {
		return 0, 0
	}
	hi = min(n, (size-1-off)/s+1)
	if lo > hi {
		lo = hi
	}
	return lo, hi
}

// tap splits a column-matrix row index into its channel and kernel offsets
// (c, kz, ky, kx).
func (g *geom3) tap(r int) (c, kz, ky, kx int) {
	K := g.kernelSize()
	c, kr := r/K, r%K
	return c, kr / (g.k[1] * g.k[2]), (kr / g.k[2]) % g.k[1], kr % g.k[2]
}

// im2col writes rows [r0, r1) of the column matrix for one image and group:
// row (c, kz, ky, kx) holds, for every output position, the input element
// that kernel tap meets (0 in the padding). x holds the group's channels.
func im2col(g *geom3, x, col []float32, r0, r1 int) {
	P := g.outSize()
	inPlane := g.inSize()
	D, H, W := g.in[0], g.in[1], g.in[2]
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	for r := r0; r < r1; r++ {
		c, kz, ky, kx := g.tap(r)
		plane := x[c*inPlane : (c+1)*inPlane]
		row := col[r*P : (r+1)*P]
		offx := kx*g.d[2] - g.pb[2]
		lo, hi := validRange(OW, g.s[2], offx, W)
		for oz := 0; oz < OD; oz++ {
			iz := oz*g.s[0] - g.pb[0] + kz*g.d[0]
			blk := row[oz*OH*OW : (oz+1)*OH*OW]
			if iz < 0 || iz >= D {
				clear(blk)
				continue
			}
			for oy := 0; oy < OH; oy++ {
				iy := oy*g.s[1] - g.pb[1] + ky*g.d[1]
				dst := blk[oy*OW : (oy+1)*OW]
				if iy < 0 || iy >= H {
					clear(dst)
					continue
				}
				src := plane[(iz*H+iy)*W : (iz*H+iy+1)*W]
				clear(dst[:lo])
				clear(dst[hi:])
				if lo >= hi {
					// Every tap of this row lands in the padding (padding
					// wider than the input): nothing to copy.
				} else if g.s[2] == 1 {
					copy(dst[lo:hi], src[lo+offx:hi+offx])
				} else {
					sw := g.s[2]
					for ox := lo; ox < hi; ox++ {
						dst[ox] = src[ox*sw+offx]
					}
				}
			}
		}
	}
}

// im2colSeg writes columns [j0, j1) of row r of the column matrix (see
// im2col) into dst.
func im2colSeg(g *geom3, x []float32, r, j0, j1 int, dst []float32) {
	inPlane := g.inSize()
	D, H, W := g.in[0], g.in[1], g.in[2]
	OH, OW := g.out[1], g.out[2]
	c, kz, ky, kx := g.tap(r)
	plane := x[c*inPlane : (c+1)*inPlane]
	offx := kx*g.d[2] - g.pb[2]
	lo, hi := validRange(OW, g.s[2], offx, W)
	sw := g.s[2]
	// Output position of column j0; each segment below is the rest of one
	// output row, so the position then advances a row at a time.
	oz, oy, ox0 := j0/(OH*OW), j0%(OH*OW)/OW, j0%OW
	for j := j0; j < j1; ox0, oy = 0, oy+1 {
		if oy == OH {
			oz, oy = oz+1, 0
		}
		ox1 := min(OW, ox0+j1-j)
		seg := dst[j-j0 : j-j0+ox1-ox0]
		j += ox1 - ox0
		iz := oz*g.s[0] - g.pb[0] + kz*g.d[0]
		iy := oy*g.s[1] - g.pb[1] + ky*g.d[1]
		if iz < 0 || iz >= D || iy < 0 || iy >= H {
			clear(seg)
			continue
		}
		src := plane[(iz*H+iy)*W : (iz*H+iy+1)*W]
		a, b := max(lo, ox0), min(hi, ox1)
		if a >= b {
			clear(seg)
			continue
		}
		clear(seg[:a-ox0])
		clear(seg[b-ox0:])
		switch d := seg[a-ox0 : b-ox0]; sw {
		case 1:
			copy(d, src[a+offx:b+offx])
		case 2:
			gatherEven(d, src[2*a+offx:2*(b-1)+offx+1])
		default:
			for ox := a; ox < b; ox++ {
				seg[ox-ox0] = src[ox*sw+offx]
			}
		}
	}
}

// convGemmPacked computes rows r0..r0+mb, columns j..j+nb of one image and
// group's convolution output into c (row stride ldc) from its packed
// weights, packing the im2col rows straight into the GEMM's B panels: the
// column matrix is never materialized. 2-D windows pack panel by panel
// (im2colPanels), others row by row (im2colRowPanels). done is gemmCoreP's.
func convGemmPacked(g *geom3, pa *packedA, r0, mb int, x []float32, j, nb int, c []float32, ldc int, done func(i, mb, j, nb int)) {
	panelA := func(pc, ic, _, kb int) []float32 { return pa.blocks[pc/gemmKC][(r0+ic)*kb:] }
	if g.panels2D(pa.k / g.kernelSize()) {
		ps := panelScratchPool.Get().(*panelScratch)
		defer panelScratchPool.Put(ps)
		gemmCoreP(mb, nb, pa.k, c, ldc, 0, panelA, func(pc, jc, kb, nbb int, dst []float32) []float32 {
			im2colPanels(g, x, pc, kb, j+jc, nbb, dst, &ps.buf, ps.taps[:])
			return dst
		}, done)
		return
	}
	tp := getPack(min(nb, gemmNC))
	defer packPool.Put(tp)
	gemmCoreP(mb, nb, pa.k, c, ldc, 0, panelA, func(pc, jc, kb, nbb int, dst []float32) []float32 {
		im2colRowPanels(g, x, pc, kb, j+jc, nbb, dst, *tp)
		return dst
	}, done)
}

// im2colRowPanels is im2colPanels for any window: each row of the block
// goes through tmp (n floats or more), then into the panels.
func im2colRowPanels(g *geom3, x []float32, r0, kb, j0, n int, dst, tmp []float32) {
	row := tmp[:n]
	full := n / gemmNR * gemmNR
	for p := 0; p < kb; p++ {
		im2colSeg(g, x, r0+p, j0, j0+n, row)
		for q := 0; q < full; q += gemmNR {
			copyPanelRow(dst[q*kb+p*gemmNR:], row[q:])
		}
		if full < n {
			d := dst[full*kb+p*gemmNR : full*kb+(p+1)*gemmNR]
			copy(d, row[full:])
			clear(d[n-full:])
		}
	}
}

// col2im adds rows [r0, r1) of a transposed convolution's column matrix
// (row (c, kz, ky, kx), one column per input position) into the output
// planes y, skipping positions cropped by the pads.
func col2im(g *geom3, col, y []float32, r0, r1 int) {
	P := g.inSize()
	outPlane := g.outSize()
	D, H, W := g.in[0], g.in[1], g.in[2]
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	for r := r0; r < r1; r++ {
		c, kz, ky, kx := g.tap(r)
		plane := y[c*outPlane : (c+1)*outPlane]
		row := col[r*P : (r+1)*P]
		offx := kx*g.d[2] - g.pb[2]
		lo, hi := validRange(W, g.s[2], offx, OW)
		for iz := 0; iz < D; iz++ {
			oz := iz*g.s[0] - g.pb[0] + kz*g.d[0]
			if oz < 0 || oz >= OD {
				continue
			}
			for iy := 0; iy < H; iy++ {
				oy := iy*g.s[1] - g.pb[1] + ky*g.d[1]
				if oy < 0 || oy >= OH {
					continue
				}
				src := row[(iz*H+iy)*W : (iz*H+iy+1)*W]
				dst := plane[(oz*OH+oy)*OW : (oz*OH+oy+1)*OW]
				sw := g.s[2]
				for ix := lo; ix < hi; ix++ {
					dst[ix*sw+offx] += src[ix]
				}
			}
		}
	}
}

// weightAndBias fetches and checks W (rank of X, float) and optional bias.
func weightAndBias(x *exec, xin *tensor) (w, b *tensor, err error) {
	if err := needFloat(xin, "X"); err != nil {
		return nil, nil, err
	}
	w = x.in(1)
	if err := needFloat(w, "W"); err != nil {
		return nil, nil, err
	}
	if len(w.shape) != len(xin.shape) {
		return nil, nil, fmt.Errorf("W has shape %v, X has shape %v: ranks differ", w.shape, xin.shape)
	}
	b = x.in(2)
	if b != nil {
		if err := needFloat(b, "bias"); err != nil {
			return nil, nil, err
		}
	}
	return w, b, nil
}

func runConv(x *exec, op *canon.Conv) error { return runConvEp(x, op, noClamp) }

// runConvEp is Conv followed by its epilogue: bias add and a clamp to
// [ep.lo, ep.hi] (ReLU, ReLU6, or none), applied to each slab of output as
// soon as the GEMM has written it, while it is still in cache.
func runConvEp(x *exec, op *canon.Conv, ep clampEp) error {
	xin := x.in(0)
	if xin.isF64() {
		return runConvF64(x, op, xin) // never fused: fusion takes float32 Convs
	}
	w, bias, err := weightAndBias(x, xin)
	if err != nil {
		return err
	}
	if len(xin.shape) < 3 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", xin.shape)
	}
	g, err := newGeom3(xin.shape, toI64(w.shape[2:]), op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
	if err != nil {
		return err
	}
	if err := g.convOut(); err != nil {
		return err
	}
	g, w = x.cropConv(g, w)
	groups := int(op.Group)
	if groups <= 0 {
		groups = 1
	}
	n, cin, cout := xin.shape[0], xin.shape[1], w.shape[0]
	if cin%groups != 0 || cout%groups != 0 {
		return fmt.Errorf("group %d does not divide input channels %d and output channels %d", groups, cin, cout)
	}
	cing, coutg := cin/groups, cout/groups
	if w.shape[1] != cing {
		return fmt.Errorf("W has shape %v (layout OI+spatial): want %d input channels per group (X has %d channels, group %d)", w.shape, cing, cin, groups)
	}
	if bias != nil && len(bias.f) != cout {
		return fmt.Errorf("bias has shape %v, want [%d]", bias.shape, cout)
	}
	y := x.newF(g.outShape(xin.shape, n, cout))
	if ep, err = ep.withResidual(x, y.shape); err != nil {
		return err
	}
	K := g.kernelSize()
	P, inP := g.outSize(), g.inSize()
	kc := cing * K
	if n*cout*P == 0 {
		x.set(0, y)
		return nil
	}
	if kc == 0 {
		clear(y.f)
		for img := 0; img < n; img++ {
			ep.at(img*cout*P).apply(y.f[img*cout*P:], P, channelBias(bias, 0), 0, cout, 0, P)
		}
	} else if cing == 1 && coutg == 1 {
		convDepthwiseFinite(g, xin.f, w.f, channelBias(bias, 0), y.f, n, cout, ep, x.weightsFinite(w.f))
		x.set(0, y)
		return nil
	} else if hasFMA && groups > 1 && cing <= maxDirectGroup && coutg <= maxDirectGroup && g.rows3x3() && x.weightsFinite(w.f) {
		convGroups3(g, xin.f, w.f, channelBias(bias, 0), y.f, n, groups, cing, coutg, ep)
		x.set(0, y)
		return nil
	} else if taps := x.convByTaps(g, w, groups, cin, cout); taps != nil {
		for img := 0; img < n; img++ {
			yi := y.f[img*cout*P : (img+1)*cout*P]
			x.convTapsImage(g, taps, xin.f[img*cin*inP:(img+1)*cin*inP], yi, cin, cout)
			epi := ep.at(img * cout * P)
			parallelFor(cout, P, func(lo, hi int) { epi.apply(yi, P, channelBias(bias, 0), lo, hi, 0, P) })
		}
	} else if u := winogradFor(x, g, groups, cin, cout, w); u != nil {
		// The Winograd output pass adds the bias and the residual, and
		// clamps.
		for img := 0; img < n; img++ {
			convWinograd(x, g, u, xin.f[img*cin*inP:(img+1)*cin*inP], y.f[img*cout*P:(img+1)*cout*P], channelBias(bias, 0), cin, cout, ep.at(img*cout*P))
		}
	} else {
		pointwise := K == 1 && g.s == [3]int{1, 1, 1} && g.pb == [3]int{} && g.pe == [3]int{}
		tasks := n * groups
		pre := x.packedWeights(1, groups, coutg, kc, w.f)
		gemmTask := func(col []float32, task int) {
			img, gr := task/groups, task%groups
			xg := xin.f[(img*cin+gr*cing)*inP : (img*cin+(gr+1)*cing)*inP]
			b := xg
			yg := y.f[(img*cout+gr*coutg)*P : (img*cout+(gr+1)*coutg)*P]
			epg := ep.at((img*cout + gr*coutg) * P)
			if pre != nil && !pointwise {
				convGemmPacked(g, pre[gr], 0, coutg, xg, 0, P, yg, P, nil)
				epg.apply(yg, P, channelBias(bias, gr*coutg), 0, coutg, 0, P)
				return
			}
			if !pointwise {
				b = col
				im2col(g, xg, col, 0, kc)
			}
			if pre != nil {
				gemmPackedSerial(pre[gr], 0, coutg, false, P, b, P, yg, P, 0)
			} else {
				gemmSerial(false, false, coutg, P, kc, 1, w.f[gr*coutg*kc:(gr+1)*coutg*kc], kc, b, P, yg, P, 0)
			}
			epg.apply(yg, P, channelBias(bias, gr*coutg), 0, coutg, 0, P)
		}
		if groups > 1 && tasks > 1 {
			// Many small GEMMs: one goroutine per task, each with its own
			// column buffer.
			nw := min(runtime.GOMAXPROCS(0), tasks)
			cols := make([][]float32, nw)
			if !pointwise && pre == nil {
				for i := range cols {
					cols[i] = x.scratch(kc * P)
				}
			}
			parallelTasks(tasks, nw, func(wk, t int) { gemmTask(cols[wk], t) })
			for _, c := range cols {
				x.release(c)
			}
		} else {
			// Large GEMMs: split into slabs across workers (gemmSlabs);
			// an unpacked im2col is split across workers here.
			var col []float32
			if !pointwise && pre == nil {
				col = x.scratch(kc * P)
			}
			for t := 0; t < tasks; t++ {
				img, gr := t/groups, t%groups
				xg := xin.f[(img*cin+gr*cing)*inP : (img*cin+(gr+1)*cing)*inP]
				epg := ep.at((img*cout + gr*coutg) * P)
				if pre != nil && !pointwise {
					// im2col straight into the GEMM's packed panels.
					yg := y.f[(img*cout+gr*coutg)*P : (img*cout+(gr+1)*coutg)*P]
					cb := channelBias(bias, gr*coutg)
					strips := epg.onTiles(yg, P, cb)
					gemmSlabs(coutg, P, kc, func(i, mb, j, nb int) {
						var done func(ti, tmb, tj, tnb int)
						if strips != nil {
							done = func(ti, tmb, tj, tnb int) { strips(i+ti, tmb, j+tj, tnb) }
						}
						convGemmPacked(g, pre[gr], i, mb, xg, j, nb, yg[i*P+j:], P, done)
						if strips == nil {
							epg.apply(yg, P, cb, i, i+mb, j, j+nb)
						}
					})
					continue
				}
				b := xg
				if !pointwise {
					parallelFor(kc, P, func(lo, hi int) { im2col(g, xg, col, lo, hi) })
					b = col
				}
				yg := y.f[(img*cout+gr*coutg)*P : (img*cout+(gr+1)*coutg)*P]
				cb := channelBias(bias, gr*coutg)
				if pre != nil {
					gemmPackedEp(pre[gr], P, b, yg, cb, epg)
					continue
				}
				gemm(false, false, coutg, P, kc, 1, w.f[gr*coutg*kc:(gr+1)*coutg*kc], kc, b, P, yg, P, 0)
				parallelFor(coutg, P, func(lo, hi int) { epg.apply(yg, P, cb, lo, hi, 0, P) })
			}
			x.release(col)
		}
	}
	x.set(0, y)
	return nil
}

// gemmPackedEp computes y = A·b from the packed weights A (b and y with
// n columns, unpadded) followed by the epilogue (bias, residual, clamp).
// With AVX-512 the micro-kernel reads b in place and finishes each tile of
// y as it stores it (clampTile's bounds permitting); otherwise, or for
// bounds it refuses, the epilogue follows each slab.
func gemmPackedEp(pa *packedA, n int, b, y, bias []float32, ep clampEp) {
	if !useAVX512 || pa.k == 0 || !tileEpilogues {
		gemmPackedThen(pa, n, b, y, func(i, mb, j, nb int) { ep.apply(y, n, bias, i, i+mb, j, j+nb) })
		return
	}
	te, fused := ep.tiled(bias)
	gemmSlabs(pa.m, n, pa.k, func(i, mb, j, nb int) {
		if !fused {
			gemmPackedDirect(pa, i, mb, nb, b[j:], n, y[i*n+j:], n, nil)
			ep.apply(y, n, bias, i, i+mb, j, j+nb)
			return
		}
		slab := te.at(i, i*n+j)
		gemmPackedDirect(pa, i, mb, nb, b[j:], n, y[i*n+j:], n, &slab)
	})
}

// gemmPackedThen is gemmPacked (beta 0, b and y with n columns) calling
// then(i, mb, j, nb) on each slab of y it finished, on the goroutine that
// computed it, while the slab is still warm in cache.
func gemmPackedThen(pa *packedA, n int, b, y []float32, then func(i, mb, j, nb int)) {
	gemmSlabs(pa.m, n, pa.k, func(i, mb, j, nb int) {
		gemmPackedSerial(pa, i, mb, false, nb, b[j:], n, y[i*n+j:], n, 0)
		then(i, mb, j, nb)
	})
}

// tileEpilogues lets GEMMs finish each tile or strip of a convolution's
// output as they compute it (tests compare with the pass over each slab).
var tileEpilogues = true

// clampEp is a convolution's fused epilogue: after the bias, a residual
// may be added (a following Add), then outputs are clamped to [lo, hi]
// (a following Relu or Clip).
type clampEp struct {
	lo, hi float32
	clamp  bool
	// res, when set, is the residual, laid out as the y given to apply.
	res []float32
}

var noClamp = clampEp{}

// withResidual sets ep.res from the step's fourth input, when there is
// one: a float32 tensor of the output's shape (fusion checks the shapes
// the graph declares; the check here guards against inputs that break them).
func (ep clampEp) withResidual(x *exec, shape []int) (clampEp, error) {
	r := x.in(3)
	if r == nil {
		return ep, nil
	}
	if r.dt != canon.Float32 || !slices.Equal(r.shape, shape) {
		return ep, fmt.Errorf("residual %s%v does not match the convolution's output f32%v", r.dt, r.shape, shape)
	}
	ep.res = r.f
	return ep, nil
}

// at is ep for the part of the output that starts at element off.
func (ep clampEp) at(off int) clampEp {
	if ep.res != nil {
		ep.res = ep.res[off:]
	}
	return ep
}

// channelBias is the bias slice starting at channel c0, or nil.
func channelBias(bias *tensor, c0 int) []float32 {
	if bias == nil {
		return nil
	}
	return bias.f[c0:]
}

// bounds are the clamp's bounds, infinite when there is no clamp.
func (ep clampEp) bounds() (lo, hi float32) {
	if ep.clamp {
		return ep.lo, ep.hi
	}
	return float32(math.Inf(-1)), float32(math.Inf(1))
}

// vectorClampExact reports that clamping to [lo, hi] with vector MAXPS and
// MINPS gives what Go's max and min give: they return their second operand
// for equal zeros, which differs only for a -0 lower or +0 upper bound.
func vectorClampExact(lo, hi float32) bool {
	return !(lo == 0 && math.Signbit(float64(lo))) && !(hi == 0 && !math.Signbit(float64(hi)))
}

// none reports an epilogue with nothing to do (no bias, residual or clamp).
func (ep clampEp) none(bias []float32) bool { return bias == nil && !ep.clamp && ep.res == nil }

// tiled is ep as a GEMM applies it to each tile it finishes (bias[r] for
// row r), reporting false when there is nothing to apply or clampTile's
// kernels cannot apply it exactly.
func (ep clampEp) tiled(bias []float32) (gemmEp, bool) {
	lo, hi := ep.bounds()
	if ep.none(bias) || !canClampTile(lo, hi) || !tileEpilogues {
		return gemmEp{}, false
	}
	return gemmEp{bias: bias, res: ep.res, lo: lo, hi: hi}, true
}

// onTiles is apply for each strip of y (row length ld) a GEMM finishes
// (gemmCoreP's done): the bias, residual and clamp meet the strip while it
// is in L1 instead of in a later pass over y. It is nil when tiled is
// false.
func (ep clampEp) onTiles(y []float32, ld int, bias []float32) func(i, mb, j, nb int) {
	te, ok := ep.tiled(bias)
	if !ok {
		return nil
	}
	return func(i, mb, j, nb int) { te.finish(y, ld, i, mb, j, nb) }
}

// apply adds bias[r] (and the residual) to rows [r0, r1), columns
// [j0, j1) of the row-major matrix y (row length ld) and clamps them.
func (ep clampEp) apply(y []float32, ld int, bias []float32, r0, r1, j0, j1 int) {
	if ep.none(bias) {
		return
	}
	lo, hi := ep.bounds()
	for r := r0; r < r1; r++ {
		var bv float32
		if bias != nil {
			bv = bias[r]
		}
		var res []float32
		if ep.res != nil {
			res = ep.res[r*ld+j0 : r*ld+j1]
		}
		clampRow(y[r*ld+j0:r*ld+j1], res, bv, lo, hi)
	}
}

// convDepthwise handles convolutions with one input and one output channel
// per group directly: a GEMM with K = kernel size would be all overhead.
func convDepthwise(g *geom3, x, w, bias, y []float32, n, c int, ep clampEp) {
	convDepthwiseFinite(g, x, w, bias, y, n, c, ep, allFinite(w))
}

// convDepthwiseFinite is convDepthwise told whether w is all finite.
func convDepthwiseFinite(g *geom3, x, w, bias, y []float32, n, c int, ep clampEp, finite bool) {
	if depthwise3x3AVX512(g, x, w, bias, y, n, c, ep) {
		return
	}
	if depthwiseChannelsFits(g, c, finite) {
		depthwiseChannels(g, x, w, bias, y, n, c, ep)
		return
	}
	if depthwiseRowsFitsFinite(g, finite) {
		depthwiseRows(g, x, w, bias, y, n, c, ep)
		return
	}
	K, P, inP := g.kernelSize(), g.outSize(), g.inSize()
	row3 := g.rows3x3()
	padded := row3 && hasFMA && finite
	parallelFor(n*c, P*K, func(p0, p1 int) {
		var buf []float32
		if padded {
			pb := getPack(dw3PaddedBuf(g))
			defer packPool.Put(pb)
			buf = *pb
			clear(buf[:paddedPlaneSize(g)+paddedSlack])
		}
		for p := p0; p < p1; p++ {
			ch := p % c
			dst := y[p*P : (p+1)*P]
			if row3 {
				var bv float32
				if bias != nil {
					bv = bias[ch]
				}
				if padded {
					depthwise3Padded(g, x, p*inP, w[ch*9:ch*9+9], bv, dst, ep.at(p*P), buf)
				} else {
					depthwise3(g, x, p*inP, w[ch*9:ch*9+9], bv, dst, ep.at(p*P))
				}
				continue
			}
			depthwisePlane(g, x[p*inP:(p+1)*inP], w, bias, ch, dst, ep.at(p*P))
		}
	})
}

// depthwisePlane computes one output plane of channel ch from its input
// plane src tap by tap: every window and geometry, every value.
func depthwisePlane(g *geom3, src, w, bias []float32, ch int, dst []float32, ep clampEp) {
	K, P := g.kernelSize(), g.outSize()
	D, H, W := g.in[0], g.in[1], g.in[2]
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	clear(dst)
	for kr := 0; kr < K; kr++ {
		kz, ky, kx := kr/(g.k[1]*g.k[2]), (kr/g.k[2])%g.k[1], kr%g.k[2]
		wv := w[ch*K+kr]
		offx := kx*g.d[2] - g.pb[2]
		lo, hi := validRange(OW, g.s[2], offx, W)
		sw := g.s[2]
		for oz := 0; oz < OD; oz++ {
			iz := oz*g.s[0] - g.pb[0] + kz*g.d[0]
			if iz < 0 || iz >= D {
				continue
			}
			for oy := 0; oy < OH; oy++ {
				iy := oy*g.s[1] - g.pb[1] + ky*g.d[1]
				if iy < 0 || iy >= H {
					continue
				}
				srow := src[(iz*H+iy)*W : (iz*H+iy+1)*W]
				drow := dst[(oz*OH+oy)*OW : (oz*OH+oy+1)*OW]
				if lo >= hi {
					// The tap meets only padding in this row.
				} else if sw == 1 {
					s := srow[lo+offx : hi+offx]
					d := drow[lo:hi]
					for i := range d {
						d[i] += wv * s[i]
					}
				} else {
					for ox := lo; ox < hi; ox++ {
						drow[ox] += wv * srow[ox*sw+offx]
					}
				}
			}
		}
	}
	var cb []float32
	if bias != nil {
		cb = bias[ch : ch+1]
	}
	ep.apply(dst, P, cb, 0, 1, 0, P)
}

// rows3x3 reports a 2-D 3×3 window with unit dilation and horizontal
// stride 1 or 2: the convolutions whose output rows the vector kernels
// compute whole.
func (g *geom3) rows3x3() bool {
	return g.in[0] == 1 && g.k == [3]int{1, 3, 3} && g.d == [3]int{1, 1, 1} && (g.s[2] == 1 || g.s[2] == 2)
}

// maxDirectGroup is the most channels per group (in and out) that
// convGroups3 serves; wider groups make GEMMs big enough to be efficient.
const maxDirectGroup = 16

// convGroups3 computes a 2-D 3×3 grouped convolution with few channels per
// group without a GEMM (whose packing would cost more than its products):
// each group's input planes are copied inside a border of zeros (see
// depthwise3Padded), then each output channel sums, row by row, the
// vector kernel over the group's input channels. Weights must be finite.
func convGroups3(g *geom3, x, w, bias, y []float32, n, groups, cing, coutg int, ep clampEp) {
	P, inP := g.outSize(), g.inSize()
	OH, OW := g.out[1], g.out[2]
	pp := paddedPlaneSize(g)
	cin, cout := groups*cing, groups*coutg
	parallelFor(n*groups, coutg*cing*9*P, func(t0, t1 int) {
		pb := getPack(cing*pp + paddedSlack)
		defer packPool.Put(pb)
		buf := *pb
		clear(buf)
		for t := t0; t < t1; t++ {
			img, gr := t/groups, t%groups
			for ci := 0; ci < cing; ci++ {
				c := img*cin + gr*cing + ci
				padPlane(g, x[c*inP:(c+1)*inP], buf[ci*pp:])
			}
			for co := gr * coutg; co < (gr+1)*coutg; co++ {
				off := (img*cout + co) * P
				plane := y[off : off+P]
				var bv float32
				if bias != nil {
					bv = bias[co]
				}
				for ci := 0; ci < cing; ci++ {
					var wk [9]float32
					copy(wk[:], w[(co*cing+ci)*9:])
					for oy := 0; oy < OH; oy++ {
						dw3PaddedRow(g, buf[ci*pp:], oy, &wk, bv, plane[oy*OW:(oy+1)*OW], ci > 0)
					}
				}
				ep.at(off).apply(plane, P, nil, 0, 1, 0, P)
			}
		}
	})
}

// depthwise3 computes one plane of a 2-D 3×3 depthwise convolution with
// unit dilation and horizontal stride 1 or 2 (any vertical stride) from the
// input plane at x[off:]: each output is the bias plus its valid taps in
// row-major order, the interior of each row in vector code and the rest
// tap by tap; then the epilogue runs on the plane while it is in cache.
func depthwise3(g *geom3, x []float32, off int, w []float32, bias float32, dst []float32, ep clampEp) {
	d := newDw3Plane(g, x, off, w, bias)
	OH, OW := g.out[1], g.out[2]
	for oy := 0; oy < OH; oy++ {
		drow := dst[oy*OW : (oy+1)*OW]
		y0 := oy*g.s[1] - g.pb[1]
		ky0, ky1 := max(0, -y0), min(3, d.H-y0)
		v := d.lo // outputs [lo, v) come from the vector kernel
		if ky1 > ky0 && d.hi > d.lo {
			var wk [9]float32
			copy(wk[:], w[ky0*3:ky1*3])
			start := off + (y0+ky0)*d.W + d.lo*d.sw - d.px
			vec.DWConv3Row(x[start:], d.W, ky1-ky0, d.sw, &wk, bias, drow[d.lo:d.hi], false)
			v = d.hi
		}
		d.points(drow, y0, 0, d.lo)
		d.points(drow, y0, v, OW)
	}
	ep.apply(dst, OH*OW, nil, 0, 1, 0, OH*OW)
}

// depthwise3Padded is depthwise3 on a copy of the input plane inside a
// border of zeros, the pads, so that every output, edges included, comes
// from the vector kernel. A zero tap adds w·0 = ±0, which changes nothing
// but the sign of a zero sum when w is finite, so it serves only weights
// that are all finite. buf holds at least dw3PaddedBuf(g) floats, the
// first paddedPlaneSize(g) + paddedSlack of them zero but for what earlier
// calls copied in.
func depthwise3Padded(g *geom3, x []float32, off int, w []float32, bias float32, dst []float32, ep clampEp, buf []float32) {
	pp := paddedPlaneSize(g)
	padPlane(g, x[off:off+g.inSize()], buf)
	var wk [9]float32
	copy(wk[:], w)
	OH, OW := g.out[1], g.out[2]
	Wp := g.in[2] + g.pb[2] + g.pe[2]
	if flat := OH * Wp; g.s[1] == 1 && g.s[2] == 1 && flat <= maxFlatPlane {
		// Small planes at stride 1 go as one long row of OH·Wp outputs,
		// the last two of each row of Wp wrapping into the next: one call
		// instead of two a row.
		tmp := buf[pp+paddedSlack : pp+paddedSlack+(flat+7)&^7]
		vec.DWConv3Row(buf, Wp, 3, 1, &wk, bias, tmp, false)
		for oy := 0; oy < OH; oy++ {
			copy(dst[oy*OW:(oy+1)*OW], tmp[oy*Wp:])
		}
	} else {
		for oy := 0; oy < OH; oy++ {
			dw3PaddedRow(g, buf, oy, &wk, bias, dst[oy*OW:(oy+1)*OW], false)
		}
	}
	ep.apply(dst, OH*OW, nil, 0, 1, 0, OH*OW)
}

// maxFlatPlane is the most outputs depthwise3Padded computes as one row.
const maxFlatPlane = 1024

// dw3PaddedBuf is the buffer depthwise3Padded needs.
func dw3PaddedBuf(g *geom3) int {
	return paddedPlaneSize(g) + paddedSlack + maxFlatPlane + 8
}

// paddedSlack is room after a padded plane for the vector loads of its
// last row (up to 8·2 + 1 past the last vector's first tap).
const paddedSlack = 24

// paddedPlaneSize is the size of an input plane inside its pads.
func paddedPlaneSize(g *geom3) int {
	return (g.in[1] + g.pb[1] + g.pe[1]) * (g.in[2] + g.pb[2] + g.pe[2])
}

// padPlane copies the 2-D input plane src into buf inside a border as
// wide as the pads, which it leaves alone: callers clear buf once, and
// the border stays zero through every plane copied in.
func padPlane(g *geom3, src, buf []float32) {
	H, W := g.in[1], g.in[2]
	Wp := W + g.pb[2] + g.pe[2]
	for iy := 0; iy < H; iy++ {
		o := (iy+g.pb[1])*Wp + g.pb[2]
		copy(buf[o:o+W], src[iy*W:(iy+1)*W])
	}
}

// dw3PaddedRow computes output row oy of a 3×3 convolution of the padded
// plane at the start of buf with weights wk into drow, every output by the
// row kernel; acc adds to drow instead of starting from bias.
func dw3PaddedRow(g *geom3, buf []float32, oy int, wk *[9]float32, bias float32, drow []float32, acc bool) {
	Wp, sw := g.in[2]+g.pb[2]+g.pe[2], g.s[2]
	vec.DWConv3Row(buf[oy*g.s[1]*Wp:], Wp, 3, sw, wk, bias, drow, acc)
}

// allFinite reports that no value of w is infinite or NaN.
func allFinite(w []float32) bool {
	for _, v := range w {
		if v-v != 0 { // NaN for ±Inf and NaN
			return false
		}
	}
	return true
}

// dw3Plane is one plane of a 3×3 depthwise convolution (see depthwise3).
type dw3Plane struct {
	x            []float32
	off          int
	w            []float32
	bias         float32
	H, W, px, sw int
	// Outputs [lo, hi) of a row have all three taps inside the row.
	lo, hi int
}

func newDw3Plane(g *geom3, x []float32, off int, w []float32, bias float32) *dw3Plane {
	d := &dw3Plane{x: x, off: off, w: w, bias: bias, H: g.in[1], W: g.in[2], px: g.pb[2], sw: g.s[2]}
	OW := g.out[2]
	d.lo = min((d.px+d.sw-1)/d.sw, OW)
	d.hi = d.lo
	if d.W-3+d.px >= 0 {
		d.hi = max(d.lo, min(OW, (d.W-3+d.px)/d.sw+1))
	}
	return d
}

// points computes outputs [ox0, ox1) of the output row whose windows start
// at input row y0, tap by tap.
func (d *dw3Plane) points(drow []float32, y0, ox0, ox1 int) {
	ky0, ky1 := max(0, -y0), min(3, d.H-y0)
	plane := d.x[d.off : d.off+d.H*d.W]
	for ox := ox0; ox < ox1; ox++ {
		acc := d.bias
		x0 := ox*d.sw - d.px
		for ky := ky0; ky < ky1; ky++ {
			row := plane[(y0+ky)*d.W : (y0+ky+1)*d.W]
			for kx := 0; kx < 3; kx++ {
				if ix := x0 + kx; ix >= 0 && ix < d.W {
					acc += d.w[ky*3+kx] * row[ix]
				}
			}
		}
		drow[ox] = acc
	}
}

func addChannelBias(y, b []float32, n, c, p int) {
	for i := 0; i < n*c; i++ {
		bv := b[i%c]
		row := y[i*p : (i+1)*p]
		for j := range row {
			row[j] += bv
		}
	}
}

func runConvTranspose(x *exec, op *canon.ConvTranspose) error {
	xin := x.in(0)
	w, bias, err := weightAndBias(x, xin)
	if err != nil {
		return err
	}
	if len(xin.shape) < 3 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", xin.shape)
	}
	g, err := newGeom3(xin.shape, toI64(w.shape[2:]), op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
	if err != nil {
		return err
	}
	sp := len(xin.shape) - 2
	outPad := op.OutputPadding
	if len(outPad) == 0 {
		outPad = make([]int64, sp)
	}
	if len(outPad) != sp {
		return fmt.Errorf("output_padding %v: want %d values", outPad, sp)
	}
	for i := range 3 {
		op := 0
		if j := i - (3 - sp); j >= 0 {
			op = int(outPad[j])
		}
		if op < 0 {
			return fmt.Errorf("output_padding %v is negative", outPad)
		}
		g.out[i] = (g.in[i]-1)*g.s[i] + (g.k[i]-1)*g.d[i] + 1 + op - g.pb[i] - g.pe[i]
		if g.out[i] <= 0 {
			return fmt.Errorf("output size %d on spatial axis %d is not positive (pads too large)", g.out[i], i)
		}
	}
	groups := int(op.Group)
	if groups <= 0 {
		groups = 1
	}
	n, cin := xin.shape[0], xin.shape[1]
	if w.shape[0] != cin {
		return fmt.Errorf("W has shape %v (layout IO+spatial): want %d input channels, as X %v", w.shape, cin, xin.shape)
	}
	if cin%groups != 0 {
		return fmt.Errorf("group %d does not divide input channels %d", groups, cin)
	}
	cing, coutg := cin/groups, w.shape[1]
	cout := coutg * groups
	if bias != nil && len(bias.f) != cout {
		return fmt.Errorf("bias has shape %v, want [%d]", bias.shape, cout)
	}
	y := x.newZF(g.outShape(xin.shape, n, cout))
	K, P, inP := g.kernelSize(), g.outSize(), g.inSize()
	rows := coutg * K
	if n*cout*P > 0 && rows*inP > 0 && cing > 0 {
		tasks := n * groups
		task := func(col []float32, t int, par bool) {
			img, gr := t/groups, t%groups
			xg := xin.f[(img*cin+gr*cing)*inP : (img*cin+(gr+1)*cing)*inP]
			// col (coutg*K, inP) = W_gᵀ · X_g, with W_g (cing, coutg*K).
			mul := gemm
			if !par {
				mul = gemmSerial
			}
			mul(true, false, rows, inP, cing, 1, w.f[gr*cing*rows:(gr+1)*cing*rows], rows, xg, inP, col, inP, 0)
			yg := y.f[(img*cout+gr*coutg)*P : (img*cout+(gr+1)*coutg)*P]
			if par {
				// Split by output channel so no two workers add into the
				// same plane.
				parallelFor(coutg, K*inP, func(lo, hi int) { col2im(g, col, yg, lo*K, hi*K) })
			} else {
				col2im(g, col, yg, 0, rows)
			}
		}
		if tasks > 1 && groups > 1 {
			nw := min(runtime.GOMAXPROCS(0), tasks)
			cols := make([][]float32, nw)
			for i := range cols {
				cols[i] = x.scratch(rows * inP)
			}
			parallelTasks(tasks, nw, func(wk, t int) { task(cols[wk], t, false) })
			for _, c := range cols {
				x.release(c)
			}
		} else {
			col := x.scratch(rows * inP)
			for t := 0; t < tasks; t++ {
				task(col, t, true)
			}
			x.release(col)
		}
	}
	if bias != nil {
		addChannelBias(y.f, bias.f, n, cout, P)
	}
	x.set(0, y)
	return nil
}

func toI64(s []int) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = int64(v)
	}
	return out
}
