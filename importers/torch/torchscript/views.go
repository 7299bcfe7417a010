package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// In-place writes through views. x[a:b] and x[k] (torch.slice and
// torch.select) alias part of x: an in-place op on such a view (x[:, 0] =
// v traces to select then copy_, x[..., :2].sigmoid_() to slice then
// sigmoid_) changes x. The importer computes the view's new value out of
// place and scatters it into x at the positions the view covers, known at
// import from the chain of slices and selects.

// writeBackKinds are the kinds an in-place op may emit to write through a
// view, besides its own.
var writeBackKinds = []string{"ScatterND", "Reshape", "Slice", "Concat", "Unsqueeze", "Shape", "Less", "Add", "Where", "Max", "Min", "Cast", "Gather"}

// viewStep is one slice (start:end:step along axis) or select (index start
// along axis, which drops the axis), in the axes of the tensor it applies
// to.
type viewStep struct {
	axis             int
	start, end, step int64
	selects          bool
	// runStart and runEnd, when set, are the bounds known only at run time
	// (1-element int64 tensors; start and end are then unused; a select
	// has only runStart): views_runtime_write.go writes through such views.
	runStart, runEnd *tensorVal
}

// viewOf is a view: the tensor it aliases and the steps from it. Views
// made by reshape, transpose and the like are opaque: writing through one
// is refused.
type viewOf struct {
	base   *tensorVal
	steps  []viewStep
	opaque bool
}

// viewBase is the tensor x aliases: its base when x is a view, else x.
func viewBase(b *builder, x *tensorVal) *tensorVal {
	if v, ok := b.views[x.name]; ok {
		return v.base
	}
	return x
}

// staleViews marks every view of base (but keep) stale: base was written.
func staleViews(b *builder, base *tensorVal, keep string) {
	for name, w := range b.views {
		if w.base == base && name != keep {
			b.stale[name] = true
		}
	}
}

// maxWriteBack bounds the index entries (elements × rank) a write through
// a view may make.
const maxWriteBack = 1 << 22

// maxScatterWrite is the size of the written tensor above which a write
// into a box of it is assembled from slices rather than scattered.
const maxScatterWrite = 1 << 12

// trackView records out as a view of x by step: of x itself, or of the
// tensor x views.
func trackView(c *opCall, x, out *tensorVal, step viewStep) {
	b := c.b()
	if x.name == "" {
		// Part of a weight or constant: writing into it is refused.
		b.views[out.name] = &viewOf{base: x, opaque: true}
		return
	}
	parent, isView := b.views[x.name]
	switch {
	case !isView:
		b.views[out.name] = &viewOf{base: x, steps: []viewStep{step}}
	case parent.opaque:
		b.views[out.name] = &viewOf{base: parent.base, opaque: true}
	default:
		steps := append(append([]viewStep{}, parent.steps...), step)
		b.views[out.name] = &viewOf{base: parent.base, steps: steps}
	}
}

// positions lists, for each element of the view in row-major order, its
// coordinates in the base tensor of static shape shape.
func (v *viewOf) positions(shape []int64) ([][]int64, []int64, bool) {
	// axes[i] is view axis i's base axis, start and stride; fixed holds
	// the base coordinates selects pinned.
	type axisMap struct{ base, start, stride, size int64 }
	axes := make([]axisMap, len(shape))
	for i, n := range shape {
		axes[i] = axisMap{int64(i), 0, 1, n}
	}
	fixed := map[int64]int64{}
	for _, s := range v.steps {
		if s.axis < 0 || s.axis >= len(axes) {
			return nil, nil, false
		}
		a := axes[s.axis]
		if s.selects {
			k := s.start
			if k < 0 {
				k += a.size
			}
			if k < 0 || k >= a.size {
				return nil, nil, false
			}
			fixed[a.base] = a.start + k*a.stride
			axes = append(axes[:s.axis], axes[s.axis+1:]...)
			continue
		}
		lo, hi := clampSlice(s.start, a.size), clampSlice(s.end, a.size)
		n := int64(0)
		if hi > lo {
			n = (hi - lo + s.step - 1) / s.step
		}
		axes[s.axis] = axisMap{a.base, a.start + lo*a.stride, a.stride * s.step, n}
	}
	viewShape := make([]int64, len(axes))
	total := int64(1)
	for i, a := range axes {
		viewShape[i] = a.size
		total *= a.size
	}
	if total*int64(len(shape)) > maxWriteBack {
		return nil, nil, false
	}
	out := make([][]int64, 0, total)
	idx := make([]int64, len(axes))
	for range total {
		p := make([]int64, len(shape))
		for base, at := range fixed {
			p[base] = at
		}
		for i, a := range axes {
			p[a.base] = a.start + idx[i]*a.stride
		}
		out = append(out, p)
		for i := len(idx) - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < axes[i].size {
				break
			}
			idx[i] = 0
		}
	}
	return out, viewShape, true
}

// clampSlice is Python's reading of a slice bound against size n.
func clampSlice(v, n int64) int64 {
	if v < 0 {
		v += n
	}
	return max(0, min(v, n))
}

// writeThroughView runs the in-place op h out of place on the view dst and
// scatters the result into the viewed tensor, which then holds it (as does
// dst). Other views of that tensor made before go stale.
func writeThroughView(c *opCall, h opHandler, dst *tensorVal, v *viewOf) (value, error) {
	b := c.b()
	shape, ok := b.info(v.base).StaticShape()
	if v.hasRunTimeBounds() || !ok {
		// Sizes or bounds only a run tells: the base is put back together
		// from slices around the written box (views_runtime_write.go).
		return writeRunTimeBox(c, h, dst, v)
	}
	if lo, hi, _, isBox := v.boxSelect(shape); isBox && numelOf(shape) > maxScatterWrite {
		// Slices and concats write a large box more cheaply than the
		// index constant of a scatter.
		return writeBox(c, h, dst, v, shape, lo, hi)
	}
	pos, viewShape, ok := v.positions(shape)
	if !ok {
		if lo, hi, _, isBox := v.boxSelect(shape); isBox {
			return writeBox(c, h, dst, v, shape, lo, hi)
		}
		return nil, c.errf("the slice written to covers too many elements, or its positions cannot be worked out at import")
	}
	res, err := inPlaceResult(c, h)
	if err != nil {
		return nil, err
	}
	if have, ok := b.info(res).StaticShape(); !ok || !sameInts(have, viewShape) {
		return nil, c.errf("the new value's shape %v is not the slice's %v", have, viewShape)
	}
	flat := make([]int64, 0, len(pos)*len(shape))
	for _, p := range pos {
		flat = append(flat, p...)
	}
	idx := &tensorVal{konst: canon.NewInt64Tensor("", []int64{int64(len(pos)), int64(len(shape))}, flat)}
	upd, err := b.emit1(c.scope, &canon.Reshape{Shape: []int64{int64(len(pos))}}, res)
	if err != nil {
		return nil, err
	}
	if upd, err = castTo(c, upd, b.info(v.base).DType); err != nil {
		return nil, err
	}
	newBase, err := b.emit1(c.scope, &canon.ScatterND{}, v.base, idx, upd)
	if err != nil {
		return nil, err
	}
	staleViews(b, v.base, dst.name)
	*v.base = *newBase
	*dst = *res
	b.views[dst.name] = v
	return dst, nil
}

// opCopy: dst.copy_(src) gives src broadcast to dst's shape, in dst's
// dtype (the in-place wrapper writes it into dst).
func opCopy(c *opCall) (value, error) {
	dst, err := c.bindInput("input", "src", "non_blocking=False")
	if err != nil {
		return nil, err
	}
	src, ok := c.bound[1].(*tensorVal)
	if !ok {
		return nil, c.errf("src must be a Tensor, got %s", typeName(c.bound[1]))
	}
	return broadcastLike(c, dst, src)
}

// opFill: dst.fill_(v) with a number or a 0-d tensor.
func opFill(c *opCall) (value, error) {
	dst, err := c.bindInput("input", "value")
	if err != nil {
		return nil, err
	}
	dt := c.b().info(dst).DType
	if t, ok := c.bound[1].(*tensorVal); ok && t.konst == nil {
		return broadcastLike(c, dst, t)
	}
	if isRunTimeScalar(c.bound[1]) {
		return fillRunTime(c, dst, c.bound[1])
	}
	s, ok := scalarOf(c.bound[1])
	if !ok {
		return nil, c.errf("value must be a number or a 0-d tensor, got %s", typeName(c.bound[1]))
	}
	shape, err := c.shapeOf(dst, "the tensor filled")
	if err != nil {
		return nil, err
	}
	k, err := scalarAs(s.f, dt)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	k.Shape = []int64{1}
	return c.b().emit1(c.scope, &canon.ConstantOfShape{Value: k, Shape: shape})
}

// broadcastLike gives src dst's dtype and (static) shape.
func broadcastLike(c *opCall, dst, src *tensorVal) (value, error) {
	if _, static := c.b().info(dst).StaticShape(); !static {
		return broadcastLikeRunTime(c, dst, src)
	}
	shape, err := c.shapeOf(dst, "the tensor written")
	if err != nil {
		return nil, err
	}
	src, err = castTo(c, src, c.b().info(dst).DType)
	if err != nil {
		return nil, err
	}
	if have, ok := c.b().info(src).StaticShape(); ok && sameInts(have, shape) {
		return src, nil
	}
	return c.b().emit1(c.scope, &canon.Expand{Shape: shape}, src)
}

// inPlaceResult runs an in-place op's out-of-place form: the tensor to
// write back through the view.
func inPlaceResult(c *opCall, h opHandler) (*tensorVal, error) {
	out, err := h(c)
	if err != nil {
		return nil, err
	}
	res, ok := out.(*tensorVal)
	if !ok {
		return nil, c.errf("internal error: an in-place op returned a %s", typeName(out))
	}
	return res, nil
}
