package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// Depthwise convolutions with windows other than 3×3 (convnext's 7×7,
// efficientnet's and mobilenet_v3's 5×5, strided or not) run on the 3×3
// row kernel: the window is cut into blocks of up to 3 rows × 3 columns
// (the columns past the window's right edge weigh zero), and each block
// adds its taps to a whole output row per call. The input plane is first
// copied inside a zero border as wide as the pads plus two more columns on
// the right, so that a block's zero-weight columns reach no further.

// maxRowsWindow is the widest window (each side) the block path takes.
const maxRowsWindow = 15

// rowsSlack is room after a padded plane for the loads of flat rows that
// run past the plane's last row: the window's width, 2 and a vector.
func rowsSlack(g *geom3) int { return (g.k[2]-1)*g.d[2] + 16 }

// depthwiseRowsFits reports a 2-D depthwise window the block path serves:
// not the 3×3 windows the dedicated kernels take, horizontal stride 1 or 2, finite weights (a pad's zero times an
// infinite weight would be NaN where the definition leaves the tap out).
func depthwiseRowsFits(g *geom3, w []float32) bool {
	return hasFMA && g.in[0] == 1 && g.k[0] == 1 && !g.rows3x3() &&
		g.k[1] <= maxRowsWindow && g.k[2] <= maxRowsWindow &&
		(g.s[2] == 1 || g.s[2] == 2) && allFinite(w)
}

// rowsPlaneWidth is the padded plane's row length: pads, plus the two
// columns a last block of one or two real columns reads past them.
func rowsPlaneWidth(g *geom3) int { return g.in[2] + g.pb[2] + g.pe[2] + 2 }

// rowsPlaneSize is the padded plane with its slack.
func rowsPlaneSize(g *geom3) int {
	return (g.in[1]+g.pb[1]+g.pe[1])*rowsPlaneWidth(g) + rowsSlack(g)
}

// rowsBuf is the scratch one worker needs: the padded plane, then room for
// a flat output (see depthwiseRowsPlane).
func rowsBuf(g *geom3) int { return rowsPlaneSize(g) + maxFlatPlane + 8 }

// dwBlock is one block of a window: its first kernel row, the plane
// column its first tap reads (relative to the output's), its number of
// kernel rows, and its weights (3 a row, zero past the window).
type dwBlock struct {
	ky, kx, rows int
	w            [9]float32
}

// dwBlocks cuts channel ch's window into blocks: 3 kernel columns a block,
// or, with a horizontal dilation, one (the row kernel's taps are adjacent
// columns; the other two weigh zero).
func dwBlocks(g *geom3, w []float32, ch int, into []dwBlock) []dwBlock {
	KH, KW, dx := g.k[1], g.k[2], g.d[2]
	k := w[ch*KH*KW : (ch+1)*KH*KW]
	cols := 3
	if dx > 1 {
		cols = 1
	}
	into = into[:0]
	for ky := 0; ky < KH; ky += 3 {
		rows := min(3, KH-ky)
		for kx := 0; kx < KW; kx += cols {
			b := dwBlock{ky: ky, kx: kx * dx, rows: rows}
			for r := range rows {
				for c := range min(cols, KW-kx) {
					b.w[3*r+c] = k[(ky+r)*KW+kx+c]
				}
			}
			into = append(into, b)
		}
	}
	return into
}

// depthwiseRowsPlane computes one output plane (dst) of channel ch from the
// input plane src: bias, then the blocks' taps by fused multiply-adds, then
// the epilogue. buf is rowsBuf(g) long and zero outside the plane's
// interior (padRowsPlane writes only there).
func depthwiseRowsPlane(g *geom3, src []float32, blocks []dwBlock, bias float32, dst []float32, ep clampEp, buf []float32) {
	H, W := g.in[1], g.in[2]
	Wp := rowsPlaneWidth(g)
	for iy := 0; iy < H; iy++ {
		o := (iy+g.pb[1])*Wp + g.pb[2]
		copy(buf[o:o+W], src[iy*W:(iy+1)*W])
	}
	plane := buf[:rowsPlaneSize(g)]
	OH, OW := g.out[1], g.out[2]
	ld := g.d[1] * Wp
	// Small planes go as one long row of stride-1 outputs over the rows
	// the plane needs, each padded row's Wp outputs in turn (those past a
	// row's last output wrap into the next row and are dropped), then
	// picked out at the strides: a few calls on whole vectors instead of
	// one per output row, most of them shorter than a vector when strided.
	rows1 := (OH-1)*g.s[1] + 1
	if flat := rows1 * Wp; flat <= maxFlatPlane && (g.s[1] == 1 && g.s[2] == 1 || OW < 2*8) {
		n := rowsPlaneSize(g)
		tmp := buf[n : n+(flat+7)&^7]
		for i, b := range blocks {
			vec.DWConv3Row(plane[b.ky*ld+b.kx:], ld, b.rows, 1, &b.w, bias, tmp, i > 0)
		}
		sy, sx := g.s[1], g.s[2]
		for oy := 0; oy < OH; oy++ {
			drow, trow := dst[oy*OW:(oy+1)*OW], tmp[oy*sy*Wp:]
			if sx == 1 {
				copy(drow, trow)
				continue
			}
			for ox := range drow {
				drow[ox] = trow[ox*sx]
			}
		}
	} else {
		// Rows of a length that is no multiple of the vector are made
		// whole vectors long in scratch (the extra outputs read on into
		// the next rows, all finite, and are dropped) rather than finished
		// one output at a time.
		n := rowsPlaneSize(g)
		var tmp []float32
		if w8 := (OW + 7) &^ 7; w8 != OW && w8 <= maxFlatPlane {
			tmp = buf[n : n+w8]
		}
		for oy := 0; oy < OH; oy++ {
			drow := dst[oy*OW : (oy+1)*OW]
			if tmp != nil {
				drow = tmp
			}
			top := oy * g.s[1] * Wp
			for i, b := range blocks {
				vec.DWConv3Row(plane[top+b.ky*ld+b.kx:], ld, b.rows, g.s[2], &b.w, bias, drow, i > 0)
			}
			if tmp != nil {
				copy(dst[oy*OW:(oy+1)*OW], tmp)
			}
		}
	}
	ep.apply(dst, OH*OW, nil, 0, 1, 0, OH*OW)
}

// depthwiseRows computes a depthwise convolution that depthwiseRowsFits
// takes, planes split between cores.
func depthwiseRows(g *geom3, x, w, bias, y []float32, n, c int, ep clampEp) {
	P, inP := g.outSize(), g.inSize()
	parallelFor(n*c, P*g.kernelSize(), func(p0, p1 int) {
		pb := getPack(rowsBuf(g))
		defer packPool.Put(pb)
		buf := (*pb)[:rowsBuf(g)]
		clear(buf)
		var blocks []dwBlock
		for p := p0; p < p1; p++ {
			ch := p % c
			var bv float32
			if bias != nil {
				bv = bias[ch]
			}
			src, dst := x[p*inP:(p+1)*inP], y[p*P:(p+1)*P]
			if !allFinite(src) {
				depthwisePlane(g, src, w, bias, ch, dst, ep.at(p*P))
				continue
			}
			blocks = dwBlocks(g, w, ch, blocks)
			depthwiseRowsPlane(g, src, blocks, bv, dst, ep.at(p*P), buf)
		}
	})
}
