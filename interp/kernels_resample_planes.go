package interp

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// resizeLastTwo resamples the last two axes (H then W, as runResize orders
// them) plane by plane and output row by output row: each output row's H
// interpolation of the input row it needs is made once, in float64, then
// its W taps are summed from it. The sums are runResize's two passes' own,
// term for term (zero-weight taps left out, in tap order from 0), so the
// results are the same bits; what changes is that no intermediate larger
// than a row is written. It reports false, doing nothing, for other axis
// orders and for windows of more than 4 taps (cubic takes 4).
func resizeLastTwo(x *exec, in *tensor, outShape []int, taps [][][]canon.Tap, order []int) bool {
	r := len(in.shape)
	if r < 2 || !in.isFloat() || in.isF64() {
		return false
	}
	H, W := r-2, r-1
	switch {
	case len(order) == 2 && order[0] == H && order[1] == W:
	case len(order) == 1 && (order[0] == H || order[0] == W):
	default:
		return false
	}
	tx, ty := compactTaps(taps[W]), compactTaps(taps[H])
	if tx == nil || ty == nil {
		return false
	}
	// An axis left alone keeps the identity taps runResize skipped.
	if !containsInt(order, H) {
		ty = identityCompact(in.shape[H])
	}
	if !containsInt(order, W) {
		tx = identityCompact(in.shape[W])
	}
	ih, iw := in.shape[H], in.shape[W]
	oh, ow := outShape[H], outShape[W]
	planes := numel(in.shape[:H])
	out := x.newF(outShape)
	lerp := newLerpTaps(tx)
	parallelFor(planes*oh, (iw+ow)*4, func(lo, hi int) {
		row := make([]float64, iw)
		for pr := lo; pr < hi; pr++ {
			p, oy := pr/oh, pr%oh
			src := in.f[p*ih*iw : (p+1)*ih*iw]
			t := &ty[oy]
			if !containsInt(order, H) {
				for i, v := range src[oy*iw : (oy+1)*iw] {
					row[i] = float64(v)
				}
			} else if t.n == 2 {
				// Linear's two taps in one loop, summed as the passes do.
				a, b := src[int(t.i[0])*iw:(int(t.i[0])+1)*iw], src[int(t.i[1])*iw:(int(t.i[1])+1)*iw]
				w0, w1 := t.w[0], t.w[1]
				for i := range row {
					row[i] = (0 + w0*float64(a[i])) + w1*float64(b[i])
				}
			} else {
				clear(row)
				for k := range t.n {
					wt, s := t.w[k], src[int(t.i[k])*iw:(int(t.i[k])+1)*iw]
					for i, v := range s {
						row[i] += wt * float64(v)
					}
				}
			}
			dst := out.f[(p*oh+oy)*ow : (p*oh+oy+1)*ow]
			if !containsInt(order, W) {
				for i, v := range row {
					dst[i] = float32(v)
				}
				continue
			}
			if lerp != nil && finite64(row) {
				vec.LerpRow(dst, row, lerp.i0, lerp.i1, lerp.w0, lerp.w1)
				continue
			}
			for ox := range dst {
				c := &tx[ox]
				if c.n == 2 {
					dst[ox] = float32((0 + c.w[0]*row[c.i[0]]) + c.w[1]*row[c.i[1]])
					continue
				}
				var s float64
				for k := range c.n {
					s += c.w[k] * row[c.i[k]]
				}
				dst[ox] = float32(s)
			}
		}
	})
	x.set(0, out)
	return true
}

// compactTap is one output's taps of non-zero weight, up to 4.
type compactTap struct {
	n int
	i [4]int32
	w [4]float64
}

// compactTaps lists each output's taps of non-zero weight, or nil when an
// output has more than 4.
func compactTaps(taps [][]canon.Tap) []compactTap {
	c := make([]compactTap, len(taps))
	for o, t := range taps {
		for _, tp := range t {
			if tp.Weight == 0 {
				continue
			}
			if c[o].n == 4 {
				return nil
			}
			c[o].i[c[o].n], c[o].w[c[o].n] = int32(tp.Index), tp.Weight
			c[o].n++
		}
	}
	return c
}

func identityCompact(n int) []compactTap {
	c := make([]compactTap, n)
	for o := range c {
		c[o] = compactTap{n: 1, i: [4]int32{int32(o)}, w: [4]float64{1}}
	}
	return c
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// resizeByRows turns resizeLastTwo on (tests compare it with the passes).
var resizeByRows = true
