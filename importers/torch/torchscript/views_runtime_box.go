package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Slices whose bounds only a run tells (x[y0:y1, x0:x1] with ints computed
// from a tensor, as torchvision's paste_mask_in_image writes a resized mask
// into its box of the image). Reading one is a Slice with its bounds as
// inputs; writing into one (copy_) rebuilds the sliced tensor along each
// sliced axis from the part before the slice, the written part and the part
// after it, with the bounds clamped as Python clamps them.

// sliceBound is one slice start:end (step 1) along a base axis, each
// bound a 1-element int64 tensor.
type sliceBound struct {
	axis       int
	start, end *tensorVal
	// selects is a select at index start (end unused), which drops axis.
	selects bool
}

// rowOnly reports whether v starts with a select at a run-time index and
// takes only steps known at import after it: x[i][0, :].
func (v *viewOf) rowOnly() bool {
	return len(v.bounds) == 1 && v.bounds[0].selects
}

// trackRunTimeSelect records out = x[i] (along axis, i known at run time)
// as a view of x, when x is no view itself; otherwise as an opaque one.
func trackRunTimeSelect(b *builder, x, out *tensorVal, axis int, i *tensorVal) {
	if _, isView := b.views[x.name]; isView || x.name == "" {
		b.views[out.name] = &viewOf{base: viewBase(b, x), opaque: true}
		return
	}
	b.views[out.name] = &viewOf{base: x, bounds: []sliceBound{{axis: axis, start: i, selects: true}}}
}

// boundTensor is a slice bound: an int known at import, a run-time int, or
// None (def).
func boundTensor(v value, def int64) (*tensorVal, bool) {
	switch x := v.(type) {
	case noneVal:
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{def})}, true
	case *dynInt:
		return x.t, true
	}
	if n, ok := toInt(v); ok {
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{n})}, true
	}
	return nil, false
}

// sliceRunTime is torch.slice(x, d, start, end, step) when start or end is
// known only at run time; ok is false when neither is.
func sliceRunTime(c *opCall, x *tensorVal, d int64) (value, bool, error) {
	_, dynStart := c.bound[2].(*dynInt)
	_, dynEnd := c.bound[3].(*dynInt)
	if !dynStart && !dynEnd {
		return nil, false, nil
	}
	step, err := c.int(4)
	if err != nil {
		return nil, true, err
	}
	if step != 1 {
		return nil, true, c.errf("a slice with bounds known only at run time and step %d: only step 1 is supported", step)
	}
	start, ok1 := boundTensor(c.bound[2], 0)
	end, ok2 := boundTensor(c.bound[3], math.MaxInt64)
	if !ok1 || !ok2 {
		return nil, true, c.errf("slice bounds are a %s and a %s, not ints", typeName(c.bound[2]), typeName(c.bound[3]))
	}
	b := c.b()
	axes := &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{d})}
	steps := &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{1})}
	out, err := b.emit1(c.scope, &canon.Slice{}, x, start, end, axes, steps)
	if err != nil {
		return nil, true, err
	}
	trackRunTimeView(b, x, out, sliceBound{axis: int(d), start: start, end: end})
	return out, true, nil
}

// trackRunTimeView records out as x sliced by bound. Only a chain of such
// slices can be written through; mixed with slices or selects known at
// import the view is opaque (writing through it is refused).
func trackRunTimeView(b *builder, x, out *tensorVal, bound sliceBound) {
	parent, isView := b.views[x.name]
	switch {
	case x.name == "":
		b.views[out.name] = &viewOf{base: x, opaque: true}
	case !isView:
		b.views[out.name] = &viewOf{base: x, bounds: []sliceBound{bound}}
	case parent.opaque || len(parent.steps) > 0:
		b.views[out.name] = &viewOf{base: parent.base, opaque: true}
	default:
		bounds := append(append([]sliceBound{}, parent.bounds...), bound)
		b.views[out.name] = &viewOf{base: parent.base, bounds: bounds}
	}
}

// writeRunTimeBox is writeThroughView for a view with run-time bounds.
func writeRunTimeBox(c *opCall, h opHandler, dst *tensorVal, v *viewOf) (value, error) {
	b := c.b()
	if v.rowOnly() {
		return writeRunTimeRow(c, h, dst, v)
	}
	for _, bd := range v.bounds {
		if bd.selects {
			return nil, c.errf("an in-place op on a select at a run-time index combined with slices of run-time bounds is not supported; compute the new tensor out of place")
		}
	}
	if len(v.steps) > 0 {
		return nil, c.errf("an in-place op on slices whose bounds are known partly at import and partly at run time is not supported; compute the new tensor out of place")
	}
	info := b.info(v.base)
	if !info.RankKnown {
		return nil, c.errf("an in-place op on a slice needs the rank of the sliced tensor")
	}
	out, err := h(c)
	if err != nil {
		return nil, err
	}
	res, ok := out.(*tensorVal)
	if !ok {
		return nil, c.errf("internal error: an in-place op returned a %s", typeName(out))
	}
	if res, err = castTo(c, res, info.DType); err != nil {
		return nil, err
	}
	newBase, err := rebuildBox(c, v.base, v.bounds, res)
	if err != nil {
		return nil, err
	}
	staleViews(b, v.base, dst.name)
	*v.base = *newBase
	*dst = *res
	b.views[dst.name] = v
	return dst, nil
}

// rebuildBox is base with the box bounds selects replaced by res.
func rebuildBox(c *opCall, base *tensorVal, bounds []sliceBound, res *tensorVal) (*tensorVal, error) {
	if len(bounds) == 0 {
		return res, nil
	}
	b := c.b()
	bd := bounds[0]
	a := int64(bd.axis)
	n, err := b.emit1(c.scope, &canon.ShapeOf{Start: a, End: a + 1}, base)
	if err != nil {
		return nil, err
	}
	s, err := clampBound(c, bd.start, n)
	if err != nil {
		return nil, err
	}
	e, err := clampBound(c, bd.end, n)
	if err != nil {
		return nil, err
	}
	if e, err = b.emit1(c.scope, &canon.Variadic{Fn: canon.VarMax}, e, s); err != nil {
		return nil, err
	}
	zero := &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{0})}
	part := func(from, to *tensorVal) (*tensorVal, error) {
		axes := &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{a})}
		return b.emit1(c.scope, &canon.Slice{}, base, from, to, axes)
	}
	before, err := part(zero, s)
	if err != nil {
		return nil, err
	}
	mid, err := part(s, e)
	if err != nil {
		return nil, err
	}
	after, err := part(e, n)
	if err != nil {
		return nil, err
	}
	inner, err := rebuildBox(c, mid, bounds[1:], res)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Concat{Axis: a}, before, inner, after)
}

// clampBound is Python's reading of slice bound v against length n: v + n
// when negative, then clamped to [0, n].
func clampBound(c *opCall, v, n *tensorVal) (*tensorVal, error) {
	b := c.b()
	zero := &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{0})}
	neg, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpLess}, v, zero)
	if err != nil {
		return nil, err
	}
	wrapped, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, v, n)
	if err != nil {
		return nil, err
	}
	// v + n overflows for v near the int64 maximum (an end left None), but
	// is only taken when v is negative.
	w, err := b.emit1(c.scope, &canon.Where{}, neg, wrapped, v)
	if err != nil {
		return nil, err
	}
	if w, err = b.emit1(c.scope, &canon.Variadic{Fn: canon.VarMax}, w, zero); err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Variadic{Fn: canon.VarMin}, w, n)
}

// writeRunTimeRow writes through x[i][steps...] (i known at run time): the
// row x[i] is taken out, the steps written into it as writeThroughView
// writes into a tensor of known shape, and the row put back between the
// rows before and after it.
func writeRunTimeRow(c *opCall, h opHandler, dst *tensorVal, v *viewOf) (value, error) {
	b := c.b()
	base := v.base
	info := b.info(base)
	bd := v.bounds[0]
	if !info.RankKnown || bd.axis >= len(info.Shape) {
		return nil, c.errf("an in-place op on a select at a run-time index needs the rank of the tensor selected from")
	}
	a := int64(bd.axis)
	n, err := b.emit1(c.scope, &canon.ShapeOf{Start: a, End: a + 1}, base)
	if err != nil {
		return nil, err
	}
	// Python's x[i] with i < 0 is x[i + n].
	zero := &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{0})}
	one := &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{1})}
	neg, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpLess}, bd.start, zero)
	if err != nil {
		return nil, err
	}
	wrapped, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, bd.start, n)
	if err != nil {
		return nil, err
	}
	i, err := b.emit1(c.scope, &canon.Where{}, neg, wrapped, bd.start)
	if err != nil {
		return nil, err
	}
	at, err := b.emit1(c.scope, &canon.Reshape{}, i, scalarShape())
	if err != nil {
		return nil, err
	}
	row, err := b.emit1(c.scope, &canon.Gather{Axis: a}, base, at)
	if err != nil {
		return nil, err
	}
	var newRow *tensorVal
	if len(v.steps) == 0 {
		out, err := h(c)
		if err != nil {
			return nil, err
		}
		res, ok := out.(*tensorVal)
		if !ok {
			return nil, c.errf("internal error: an in-place op returned a %s", typeName(out))
		}
		if newRow, err = castTo(c, res, info.DType); err != nil {
			return nil, err
		}
		*dst = *res
	} else {
		inRow := &viewOf{base: row, steps: v.steps}
		if _, err := writeThroughView(c, h, dst, inRow); err != nil {
			return nil, err
		}
		newRow = row // writeThroughView put the new row there
	}
	upd, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{a}}, newRow)
	if err != nil {
		return nil, err
	}
	end, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, i, one)
	if err != nil {
		return nil, err
	}
	newBase, err := rebuildBox(c, base, []sliceBound{{axis: bd.axis, start: i, end: end}}, upd)
	if err != nil {
		return nil, err
	}
	staleViews(b, base, dst.name)
	*base = *newBase
	b.views[dst.name] = v
	return dst, nil
}
