package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Writes through a view of a tensor whose sizes only a run tells
// (torchvision's expand_boxes writes the columns of zeros_like(boxes), one
// row per detection): when the view is whole slices and one select along
// an axis of known size, the new tensor is the parts before and after the
// selected index with the new value between them, concatenated along that
// axis, which needs no size of the other axes.

// selectOnly is the one select of v, when v's other steps take whole axes
// (which leave the axes where they are).
func (v *viewOf) selectOnly() (viewStep, bool) {
	var sel viewStep
	found := false
	for _, s := range v.steps {
		switch {
		case s.selects && !found:
			sel, found = s, true
		case !s.selects && s.start == 0 && s.step == 1 && s.end >= math.MaxInt32:
			// a whole axis
		default:
			return viewStep{}, false
		}
	}
	return sel, found
}

// writeSelectRunTime is writeThroughView for a base of run-time sizes; ok
// is false when the view is not one select along an axis of known size.
func writeSelectRunTime(c *opCall, h opHandler, dst *tensorVal, v *viewOf) (value, bool, error) {
	b := c.b()
	info := b.info(v.base)
	sel, ok := v.selectOnly()
	if !ok || !info.RankKnown || sel.axis >= len(info.Shape) || !info.Shape[sel.axis].Known() {
		return nil, false, nil
	}
	n, k := info.Shape[sel.axis].Size, sel.start
	if k < 0 {
		k += n
	}
	if k < 0 || k >= n {
		return nil, true, c.errf("index %d is out of range for dimension %d of size %d", sel.start, sel.axis, n)
	}
	out, err := h(c)
	if err != nil {
		return nil, true, err
	}
	res, ok := out.(*tensorVal)
	if !ok {
		return nil, true, c.errf("internal error: an in-place op returned a %s", typeName(out))
	}
	if r := b.info(res); !r.RankKnown || len(r.Shape) != len(info.Shape)-1 {
		return nil, true, c.errf("the new value's rank is not the slice's (%d)", len(info.Shape)-1)
	}
	if res, err = castTo(c, res, info.DType); err != nil {
		return nil, true, err
	}
	axis := int64(sel.axis)
	mid, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{axis}}, res)
	if err != nil {
		return nil, true, err
	}
	var parts []*tensorVal
	if k > 0 {
		before, err := b.emit1(c.scope, &canon.Slice{Starts: []int64{0}, Ends: []int64{k}, Axes: []int64{axis}, Steps: []int64{1}}, v.base)
		if err != nil {
			return nil, true, err
		}
		parts = append(parts, before)
	}
	parts = append(parts, mid)
	if k+1 < n {
		after, err := b.emit1(c.scope, &canon.Slice{Starts: []int64{k + 1}, Ends: []int64{n}, Axes: []int64{axis}, Steps: []int64{1}}, v.base)
		if err != nil {
			return nil, true, err
		}
		parts = append(parts, after)
	}
	newBase, err := b.emit1(c.scope, &canon.Concat{Axis: axis}, parts...)
	if err != nil {
		return nil, true, err
	}
	staleViews(b, v.base, dst.name)
	*v.base = *newBase
	*dst = *res
	b.views[dst.name] = v
	return dst, true, nil
}

// expandRunTime is src Expand'ed to dst's shape read at run time (Expand
// broadcasts both ways, which is torch's broadcast of src to dst wherever
// torch does not raise).
func expandRunTime(c *opCall, dst, src *tensorVal) (value, error) {
	if _, err := c.rankOf(dst, "the tensor written"); err != nil {
		return nil, err
	}
	shape, err := c.b().emit1(c.scope, &canon.ShapeOf{End: math.MaxInt64}, dst)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Expand{}, src, shape)
}
