package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Writes through a view whose base has sizes, or whose slices have bounds,
// known only at run time (batch_images' copy_ into a slice that ends at
// the image's size, paste_mask_in_image's copy_ into a box computed from
// a tensor, expand_boxes' writes into a column of zeros_like(boxes), a row
// written at a run-time index). The base is put back together along each
// cut axis from the part before the written box, the box and the part
// after it, with the bounds read as Python reads them (negative from the
// end, clamped to the axis), so the three parts always partition the axis.

// boxCut is what a view does to one axis of its base: a select (at a
// known or run-time index) or a unit-step slice (bounds known or not).
type boxCut struct {
	cut, selects     bool
	start, end       int64
	runStart, runEnd *tensorVal
}

// hasRunTimeBounds reports whether a step of the view has a bound or index
// known only at run time.
func (v *viewOf) hasRunTimeBounds() bool {
	for _, s := range v.steps {
		if s.runStart != nil || s.runEnd != nil {
			return true
		}
	}
	return false
}

// boxCuts maps the view's steps onto the base's rank axes; ok is false
// when an axis is cut twice or a slice's step is not 1.
func (v *viewOf) boxCuts(rank int) ([]boxCut, bool) {
	cuts := make([]boxCut, rank)
	axes := make([]int, rank)
	for i := range axes {
		axes[i] = i
	}
	for _, s := range v.steps {
		if s.axis < 0 || s.axis >= len(axes) {
			return nil, false
		}
		ax := axes[s.axis]
		if cuts[ax].cut {
			return nil, false
		}
		if s.selects {
			cuts[ax] = boxCut{cut: true, selects: true, start: s.start, runStart: s.runStart}
			axes = append(axes[:s.axis:s.axis], axes[s.axis+1:]...)
			continue
		}
		if s.step != 1 {
			return nil, false
		}
		whole := s.runStart == nil && s.runEnd == nil && s.start == 0 && s.end >= math.MaxInt32
		cuts[ax] = boxCut{cut: !whole, start: s.start, end: s.end, runStart: s.runStart, runEnd: s.runEnd}
	}
	return cuts, true
}

// writeRunTimeBox runs the in-place op h out of place on the view dst and
// writes the result into the base.
func writeRunTimeBox(c *opCall, h opHandler, dst *tensorVal, v *viewOf) (value, error) {
	b := c.b()
	vi := b.info(v.base)
	if !vi.RankKnown {
		return nil, c.errf("an in-place op on a slice needs the sliced tensor's rank; give the input shape (--input-shape NAME=D1,D2,...)")
	}
	cuts, ok := v.boxCuts(len(vi.Shape))
	if !ok {
		return nil, c.errf("an in-place op on a slice of a tensor whose sizes or slice bounds are known only at run time is supported when each axis is cut once, by a select or a unit-step slice; give the input shape (--input-shape NAME=D1,D2,...) or compute the new tensor out of place")
	}
	res, err := inPlaceResult(c, h)
	if err != nil {
		return nil, err
	}
	upd, err := castTo(c, res, vi.DType)
	if err != nil {
		return nil, err
	}
	var selected []int64
	for ax, k := range cuts {
		if k.selects {
			selected = append(selected, int64(ax))
		}
	}
	if len(selected) > 0 {
		if upd, err = b.emit1(c.scope, &canon.Unsqueeze{Axes: selected}, upd); err != nil {
			return nil, err
		}
	}
	newBase, err := rebuildAlong(c, v.base, upd, cuts, 0)
	if err != nil {
		return nil, err
	}
	staleViews(b, v.base, dst.name)
	*v.base = *newBase
	*dst = *res
	b.views[dst.name] = v
	return dst, nil
}

// cutRange is a cut's [start, end) on its axis, as Python reads it: each a
// 1-element tensor; fromZero and toEnd say the range starts at 0 and ends
// at the axis' end, when known at import.
type cutRange struct {
	start, end      *tensorVal
	fromZero, toEnd bool
}

// rangeOf reads cut along axis k of base (size, -1 when known only at run
// time).
func rangeOf(c *opCall, base *tensorVal, k int, cut boxCut, size int64) (cutRange, error) {
	if cut.runStart == nil && cut.runEnd == nil {
		if size >= 0 {
			lo, hi := cut.start, cut.end
			if cut.selects {
				if lo < 0 {
					lo += size
				}
				if lo < 0 || lo >= size {
					return cutRange{}, c.errf("index %d is out of range for dimension %d of size %d", cut.start, k, size)
				}
				hi = lo + 1
			} else {
				lo, hi = clampSlice(lo, size), clampSlice(hi, size)
				hi = max(hi, lo)
			}
			return cutRange{int64Const(lo), int64Const(hi), lo == 0, hi == size}, nil
		}
		// Non-negative bounds need no size: ONNX Slice clamps them.
		if cut.start >= 0 && (cut.selects || cut.end >= 0) {
			hi := cut.start + 1
			if !cut.selects {
				hi = max(cut.end, cut.start)
			}
			return cutRange{int64Const(cut.start), int64Const(hi), cut.start == 0, false}, nil
		}
	}
	b := c.b()
	var n *tensorVal
	if size >= 0 {
		n = int64Const(size)
	} else {
		var err error
		if n, err = b.emit1(c.scope, &canon.ShapeOf{Start: int64(k), End: int64(k) + 1}, base); err != nil {
			return cutRange{}, err
		}
	}
	start := cut.runStart
	if start == nil {
		start = int64Const(cut.start)
	}
	if cut.selects {
		// Python's x[i] with i < 0 is x[i + n] (torch raises out of range).
		s, err := wrapNegative(c, start, n)
		if err != nil {
			return cutRange{}, err
		}
		e, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, s, int64Const(1))
		return cutRange{start: s, end: e}, err
	}
	end := cut.runEnd
	if end == nil {
		end = int64Const(cut.end)
	}
	s, err := clampBound(c, start, n)
	if err != nil {
		return cutRange{}, err
	}
	e, err := clampBound(c, end, n)
	if err != nil {
		return cutRange{}, err
	}
	e, err = b.emit1(c.scope, &canon.Variadic{Fn: canon.VarMax}, e, s)
	return cutRange{start: s, end: e}, err
}

// rebuildAlong puts upd into base at the box cuts describe, from axis k on.
func rebuildAlong(c *opCall, base, upd *tensorVal, cuts []boxCut, k int) (*tensorVal, error) {
	if k == len(cuts) {
		return upd, nil
	}
	if !cuts[k].cut {
		return rebuildAlong(c, base, upd, cuts, k+1)
	}
	b := c.b()
	size := int64(-1)
	if vi := b.info(base); vi.RankKnown && vi.Shape[k].Known() {
		size = vi.Shape[k].Size
	}
	r, err := rangeOf(c, base, k, cuts[k], size)
	if err != nil {
		return nil, err
	}
	part := func(from, to *tensorVal) (*tensorVal, error) {
		return b.emit1(c.scope, &canon.Slice{}, base, from, to, int64Const(int64(k)))
	}
	var parts []*tensorVal
	if !r.fromZero {
		before, err := part(int64Const(0), r.start)
		if err != nil {
			return nil, err
		}
		parts = append(parts, before)
	}
	mid, err := part(r.start, r.end)
	if err != nil {
		return nil, err
	}
	if mid, err = rebuildAlong(c, mid, upd, cuts, k+1); err != nil {
		return nil, err
	}
	parts = append(parts, mid)
	if !r.toEnd {
		after, err := part(r.end, int64Const(math.MaxInt64))
		if err != nil {
			return nil, err
		}
		parts = append(parts, after)
	}
	if len(parts) == 1 {
		return mid, nil
	}
	return b.emit1(c.scope, &canon.Concat{Axis: int64(k)}, parts...)
}

// wrapNegative is index i (1-element) read against length n: i + n when
// negative.
func wrapNegative(c *opCall, i, n *tensorVal) (*tensorVal, error) {
	b := c.b()
	neg, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpLess}, i, int64Const(0))
	if err != nil {
		return nil, err
	}
	wrapped, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, i, n)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Where{}, neg, wrapped, i)
}

// clampBound is Python's reading of slice bound v against length n: v + n
// when negative, then clamped to [0, n]. (v + n overflows for v near the
// int64 maximum, an end left None, but is only taken when v is negative.)
func clampBound(c *opCall, v, n *tensorVal) (*tensorVal, error) {
	b := c.b()
	w, err := wrapNegative(c, v, n)
	if err != nil {
		return nil, err
	}
	if w, err = b.emit1(c.scope, &canon.Variadic{Fn: canon.VarMax}, w, int64Const(0)); err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Variadic{Fn: canon.VarMin}, w, n)
}
