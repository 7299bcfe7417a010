package interp

import (
	"math"
	"sync"
)

// Packing a 2-D convolution's column matrix straight into the GEMM's B
// panels (see convGemmPacked), panel by panel: each panel row is one tap
// (c, ky, kx) over 16 output positions, and when those share an output row
// it is 16 loads at a fixed stride from one input row (one vector move or
// permute); when they span output rows, a vector gather. The input rows a
// block of columns reads are first copied inside their zero pads, so no tap
// needs a bounds check: the column matrix comes out exactly as im2col
// writes it (the padding as +0).

// panels2D reports a convolution whose column matrix im2colPanels packs: a
// 2-D window (one leading axis of size 1, unpadded) over cing channels
// small enough, pads included, for 32-bit offsets.
func (g *geom3) panels2D(cing int) bool {
	padded := cing * (g.in[1] + g.pb[1] + g.pe[1]) * (g.in[2] + g.pb[2] + g.pe[2])
	return g.in[0] == 1 && g.k[0] == 1 && g.out[0] == 1 && g.pb[0] == 0 && padded <= math.MaxInt32
}

// tapWindow is the part of the input that one block of the column matrix
// reads, as tap offsets into src.
type tapWindow struct {
	src []float32
	// rowLen is the length of src's rows, y0 the padded input row its row 0
	// is (so output row oy starts at (oy·sy - y0)·rowLen).
	rowLen, y0 int
	// taps[p] is the offset in src of row r0+p's tap for output (y0's row,
	// column 0). They ascend, as panelTaps needs.
	taps []int32
}

// newTapWindow sets w up for rows r0..r0+kb and columns j0..j0+n of the
// column matrix of x (one image and group); buf backs the padded copy
// when the window has pads.
func newTapWindow(g *geom3, x []float32, r0, kb, j0, n int, buf *[]float32, taps []int32) tapWindow {
	K := g.kernelSize()
	H, W, OW := g.in[1], g.in[2], g.out[2]
	c0, c1 := r0/K, (r0+kb-1)/K+1
	w := tapWindow{src: x[c0*H*W : c1*H*W], rowLen: W, taps: taps[:kb]}
	plane := H * W
	if g.pb[1] != 0 || g.pb[2] != 0 || g.pe[1] != 0 || g.pe[2] != 0 {
		// Only the padded rows the block's output rows reach.
		oy0, oy1 := j0/OW, (j0+n-1)/OW
		w.y0 = oy0 * g.s[1]
		rows := oy1*g.s[1] + (g.k[1]-1)*g.d[1] + 1 - w.y0
		w.rowLen = W + g.pb[2] + g.pe[2]
		plane = rows * w.rowLen
		w.src = padRows(g, x, c0, c1, w.y0, rows, buf)
	}
	for p := range kb {
		c, _, ky, kx := g.tap(r0 + p)
		w.taps[p] = int32((c-c0)*plane + ky*g.d[1]*w.rowLen + kx*g.d[2])
	}
	return w
}

// padRows copies padded rows y0..y0+rows of channels c0..c1 of x, zero
// pads included, into *buf (grown as needed) and returns them.
func padRows(g *geom3, x []float32, c0, c1, y0, rows int, buf *[]float32) []float32 {
	H, W := g.in[1], g.in[2]
	px := g.pb[2]
	wp := W + px + g.pe[2]
	size := (c1 - c0) * rows * wp
	if cap(*buf) < size {
		*buf = make([]float32, size)
	}
	dst := (*buf)[:size]
	for c := c0; c < c1; c++ {
		for r := range rows {
			d := dst[((c-c0)*rows+r)*wp : ((c-c0)*rows+r+1)*wp]
			iy := y0 + r - g.pb[1]
			if iy < 0 || iy >= H {
				clear(d)
				continue
			}
			clear(d[:px])
			copy(d[px:px+W], x[(c*H+iy)*W:(c*H+iy+1)*W])
			clear(d[px+W:])
		}
	}
	return dst
}

// im2colPanels writes rows r0..r0+kb, columns j0..j0+n of the column
// matrix of x (one image and group, see im2col) into dst as packB lays
// them out: panels of 16 columns, each kb×16, the last zero-padded.
func im2colPanels(g *geom3, x []float32, r0, kb, j0, n int, dst []float32, buf *[]float32, taps []int32) {
	w := newTapWindow(g, x, r0, kb, j0, n, buf, taps)
	OW, sy, sx := g.out[2], g.s[1], g.s[2]
	for q := 0; q < n; q += gemmNR {
		nr := min(gemmNR, n-q)
		pd := dst[q*kb : (q+gemmNR)*kb]
		oy, ox := (j0+q)/OW, (j0+q)%OW
		base := (oy*sy-w.y0)*w.rowLen + ox*sx
		if nr == gemmNR && ox+gemmNR <= OW && panelTaps(pd, w.src[base:], w.taps, sx) {
			continue
		}
		if nr == gemmNR {
			// Columns from several output rows (or another stride):
			// gathered, each at its own offset from base.
			var cols [gemmNR]int32
			cy, cx := oy, ox
			for i := range cols {
				cols[i] = int32((cy*sy-w.y0)*w.rowLen + cx*sx - base)
				if cx++; cx == OW {
					cy, cx = cy+1, 0
				}
			}
			if panelGather(pd, w.src[base:], w.taps, &cols) {
				continue
			}
		}
		// The panel's columns span output rows, or the vector code
		// cannot serve it: one run of columns per output row.
		for i := 0; i < nr; {
			run := min(nr-i, OW-ox)
			src := w.src[base:]
			for p, t := range w.taps {
				gatherStrided(pd[p*gemmNR+i:p*gemmNR+i+run], src[t:], sx)
			}
			i += run
			oy, ox = oy+1, 0
			base = (oy*sy - w.y0) * w.rowLen
		}
		if nr < gemmNR {
			for p := range kb {
				clear(pd[p*gemmNR+nr : (p+1)*gemmNR])
			}
		}
	}
}

// gatherStrided sets dst[i] = src[s·i].
func gatherStrided(dst, src []float32, s int) {
	switch s {
	case 1:
		copy(dst, src[:len(dst)])
	case 2:
		gatherEven(dst, src)
	default:
		src = src[:s*(len(dst)-1)+1]
		for i := range dst {
			dst[i] = src[s*i]
		}
	}
}

// panelTapsGo is panelTaps' portable form, for its tests.
func panelTapsGo(dst, src []float32, taps []int32, s int) {
	for p, t := range taps {
		gatherStrided(dst[p*gemmNR:(p+1)*gemmNR], src[t:], s)
	}
}

// panelScratch is what im2colPanels needs besides its output: the padded
// input rows and the tap offsets of one block.
type panelScratch struct {
	buf  []float32
	taps [gemmKC]int32
}

var panelScratchPool = sync.Pool{New: func() any { return new(panelScratch) }}
