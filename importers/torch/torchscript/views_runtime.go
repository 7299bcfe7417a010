package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Slices whose end only a run tells: torchvision's batch_images copies an
// image of run-time size into the top-left corner of a zero batch,
// batched[i][:c, :h, :w].copy_(img). Reading such a slice is a Slice whose
// ends are an input; writing through it puts the base tensor back
// together along each cut axis: the written box, then the rest of the
// axis from the box's end on. The box starts at 0 on every axis cut at run
// time, so the two parts always partition the axis (ONNX clamps the end as
// Python does, and the same end bounds both parts).

// runTimeSlice is x[start:end] along d with an end known only at run
// time (start known at import, 0 when it is to stay writable, step 1).
func runTimeSlice(c *opCall, x *tensorVal, d int64, start int64, end *dynInt, step int64) (value, error) {
	out, err := c.b().emit(c.scope, &canon.Slice{Starts: []int64{start}, Axes: []int64{d}, Steps: []int64{step}}, []*tensorVal{x, nil, end.t}, 1)
	if err != nil {
		return nil, err
	}
	vs := viewStep{axis: int(d), start: start, end: math.MaxInt64, step: step, runTimeEnd: end}
	trackView(c, x, out[0], vs)
	return out[0], nil
}

// runTimeCut is what a view does to one axis of its base: a select at a
// known index, or a unit-step slice from 0 to a run-time end, or a static
// unit-step slice.
type runTimeCut struct {
	cut      bool
	selects  bool
	lo       int64 // the index a select keeps, or the start of a static slice
	hi       int64 // the end of a static slice
	end      *dynInt
	selected bool
}

// hasRunTimeBounds reports whether a step of the view ends at run time.
func (v *viewOf) hasRunTimeBounds() bool {
	for _, s := range v.steps {
		if s.runTimeEnd != nil {
			return true
		}
	}
	return false
}

// runTimeCuts maps the view's steps onto the base's rank axes; ok is false
// when an axis is cut twice or a step is not one writeRunTimeBox handles.
func (v *viewOf) runTimeCuts(rank int) ([]runTimeCut, bool) {
	cuts := make([]runTimeCut, rank)
	axes := make([]int, rank)
	for i := range axes {
		axes[i] = i
	}
	for _, s := range v.steps {
		if s.axis < 0 || s.axis >= len(axes) {
			return nil, false
		}
		ax := axes[s.axis]
		if cuts[ax].cut || (!s.selects && s.step != 1) {
			return nil, false
		}
		switch {
		case s.selects:
			if s.start < 0 {
				return nil, false
			}
			cuts[ax] = runTimeCut{cut: true, selects: true, lo: s.start}
			axes = append(axes[:s.axis:s.axis], axes[s.axis+1:]...)
		case s.runTimeEnd != nil:
			if s.start != 0 {
				return nil, false
			}
			cuts[ax] = runTimeCut{cut: true, end: s.runTimeEnd}
		default:
			if s.start < 0 || s.end < s.start {
				return nil, false
			}
			cuts[ax] = runTimeCut{cut: true, lo: s.start, hi: s.end}
		}
	}
	return cuts, true
}

// writeRunTimeBox runs the in-place op h out of place on the view dst
// (whose slices end at run time) and writes the result into the base.
func writeRunTimeBox(c *opCall, h opHandler, dst *tensorVal, v *viewOf) (value, error) {
	b := c.b()
	vi := b.info(v.base)
	if !vi.RankKnown {
		return nil, c.errf("an in-place op on a slice that ends at run time needs the sliced tensor's rank")
	}
	cuts, ok := v.runTimeCuts(len(vi.Shape))
	if !ok {
		return nil, c.errf("an in-place op on a slice that ends at run time is supported when each axis is cut once, by a select at a known index or a unit-step slice (from 0 when its end is known only at run time)")
	}
	out, err := h(c)
	if err != nil {
		return nil, err
	}
	res, ok := out.(*tensorVal)
	if !ok {
		return nil, c.errf("internal error: an in-place op returned a %s", typeName(out))
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
	newBase, err := assembleRunTimeBox(c, v.base, upd, cuts, 0)
	if err != nil {
		return nil, err
	}
	staleViews(b, v.base, dst.name)
	*v.base = *newBase
	*dst = *res
	b.views[dst.name] = v
	return dst, nil
}

// assembleRunTimeBox puts upd into base at the box cuts describe, from
// axis k on.
func assembleRunTimeBox(c *opCall, base, upd *tensorVal, cuts []runTimeCut, k int) (*tensorVal, error) {
	b := c.b()
	if k == len(cuts) {
		return upd, nil
	}
	cut := cuts[k]
	size := int64(-1)
	if vi := b.info(base); vi.RankKnown && vi.Shape[k].Known() {
		size = vi.Shape[k].Size
	}
	lo, hi := cut.lo, cut.hi
	if cut.selects {
		hi = lo + 1
	}
	if !cut.cut || (cut.end == nil && lo == 0 && size >= 0 && hi >= size) {
		return assembleRunTimeBox(c, base, upd, cuts, k+1)
	}
	slice := func(from int64, to *tensorVal, toConst int64) (*tensorVal, error) {
		op := &canon.Slice{Starts: []int64{from}, Axes: []int64{int64(k)}, Steps: []int64{1}}
		if to == nil {
			op.Ends = []int64{toConst}
		}
		out, err := b.emit(c.scope, op, []*tensorVal{base, nil, to}, 1)
		if err != nil {
			return nil, err
		}
		return out[0], nil
	}
	var before, mid, after *tensorVal
	var err error
	if cut.end != nil {
		if mid, err = slice(0, cut.end.t, 0); err != nil {
			return nil, err
		}
		// The rest of the axis: Slice from the end (an input) to the last.
		op := &canon.Slice{Ends: []int64{math.MaxInt64}, Axes: []int64{int64(k)}, Steps: []int64{1}}
		outs, err := b.emit(c.scope, op, []*tensorVal{base, cut.end.t}, 1)
		if err != nil {
			return nil, err
		}
		after = outs[0]
	} else {
		if lo > 0 {
			if before, err = slice(0, nil, lo); err != nil {
				return nil, err
			}
		}
		if mid, err = slice(lo, nil, hi); err != nil {
			return nil, err
		}
		if after, err = slice(hi, nil, math.MaxInt64); err != nil {
			return nil, err
		}
	}
	if mid, err = assembleRunTimeBox(c, mid, upd, cuts, k+1); err != nil {
		return nil, err
	}
	parts := []*tensorVal{mid, after}
	if before != nil {
		parts = append([]*tensorVal{before}, parts...)
	}
	return b.emit1(c.scope, &canon.Concat{Axis: int64(k)}, parts...)
}

// sliceToRunTimeEnd is opSlice with an end known only at run time.
func sliceToRunTimeEnd(c *opCall, x *tensorVal, d int64, end *dynInt) (value, error) {
	start := int64(0)
	var err error
	if !c.isNone(2) {
		if start, err = c.int(2); err != nil {
			return nil, err
		}
	}
	step, err := c.int(4)
	if err != nil {
		return nil, err
	}
	if step < 1 {
		return nil, c.errf("step is %d, must be positive", step)
	}
	return runTimeSlice(c, x, d, start, end, step)
}

// broadcastLikeRunTime is broadcastLike for a dst whose shape only a run
// tells: src in dst's dtype, expanded to dst's shape (copy_ broadcasts src
// to dst), skipped when the shapes are the same symbolic sizes.
func broadcastLikeRunTime(c *opCall, dst, src *tensorVal) (value, error) {
	b := c.b()
	src, err := castTo(c, src, b.info(dst).DType)
	if err != nil {
		return nil, err
	}
	dv, sv := b.info(dst), b.info(src)
	if dv.RankKnown && sv.RankKnown && len(dv.Shape) == len(sv.Shape) {
		same := true
		for i := range dv.Shape {
			if dv.Shape[i].Known() != sv.Shape[i].Known() || (dv.Shape[i].Known() && dv.Shape[i].Size != sv.Shape[i].Size) ||
				(!dv.Shape[i].Known() && b.dimSymbol(dst, i) != b.dimSymbol(src, i)) {
				same = false
				break
			}
		}
		if same {
			return src, nil
		}
	}
	shape, err := b.emit1(c.scope, canon.NewShapeOf(), dst)
	if err != nil {
		return nil, err
	}
	out, err := b.emit(c.scope, &canon.Expand{}, []*tensorVal{src, shape}, 1)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// fillRunTime is dst.fill_(v) with a number known only at run time: v as
// a 0-d tensor, cast to dst's dtype and broadcast to its shape.
func fillRunTime(c *opCall, dst *tensorVal, v value) (value, error) {
	var t *tensorVal
	var err error
	switch x := v.(type) {
	case *dynFloat:
		t = x.t
	case *dynBool:
		t = x.t
	default:
		var ok bool
		if t, ok = intTensor(v); !ok {
			return nil, c.errf("value must be a number, got %s", typeName(v))
		}
	}
	if t, err = c.b().emit1(c.scope, &canon.Reshape{}, t, scalarShape()); err != nil {
		return nil, err
	}
	return broadcastLike(c, dst, t)
}
