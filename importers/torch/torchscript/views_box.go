package torchscript

import "github.com/modelbridge/modelbridge/canon"

// A write through a view made of unit-step slices only (MViT v2 adds its
// relative position bias to attn[:, :, 1:, 1:]) changes one box of the
// base tensor. Too large for a ScatterND with one index per element, it
// is put back together with Slices and Concats instead: along each cut
// axis, the part before the box, the box, and the part after it.

// box gives the base coordinates [lo, hi) the view covers when every step
// is a unit-step slice and the box is not empty.
func (v *viewOf) box(shape []int64) (lo, hi []int64, ok bool) {
	lo = make([]int64, len(shape))
	hi = append([]int64{}, shape...)
	for _, s := range v.steps {
		if s.selects || s.step != 1 || s.axis < 0 || s.axis >= len(shape) {
			return nil, nil, false
		}
		n := hi[s.axis] - lo[s.axis]
		a, b := clampSlice(s.start, n), clampSlice(s.end, n)
		if b <= a {
			return nil, nil, false
		}
		lo[s.axis], hi[s.axis] = lo[s.axis]+a, lo[s.axis]+b
	}
	return lo, hi, true
}

// writeBox is writeThroughView for a view that box describes.
func writeBox(c *opCall, h opHandler, dst *tensorVal, v *viewOf, shape, lo, hi []int64) (value, error) {
	b := c.b()
	out, err := h(c)
	if err != nil {
		return nil, err
	}
	res, ok := out.(*tensorVal)
	if !ok {
		return nil, c.errf("internal error: an in-place op returned a %s", typeName(out))
	}
	want := make([]int64, len(shape))
	for i := range want {
		want[i] = hi[i] - lo[i]
	}
	if have, ok := b.info(res).StaticShape(); !ok || !sameInts(have, want) {
		return nil, c.errf("the new value's shape %v is not the slice's %v", have, want)
	}
	upd, err := castTo(c, res, b.info(v.base).DType)
	if err != nil {
		return nil, err
	}
	newBase, err := assembleBox(c, v.base, upd, shape, lo, hi, 0)
	if err != nil {
		return nil, err
	}
	staleViews(b, v.base, dst.name)
	*v.base = *newBase
	*dst = *res
	b.views[dst.name] = v
	return dst, nil
}

// assembleBox puts upd into base (of shape shape) at [lo, hi) from axis k
// on.
func assembleBox(c *opCall, base, upd *tensorVal, shape, lo, hi []int64, k int) (*tensorVal, error) {
	if k == len(shape) {
		return upd, nil
	}
	if lo[k] == 0 && hi[k] == shape[k] {
		return assembleBox(c, base, upd, shape, lo, hi, k+1)
	}
	slice := func(from, to int64) (*tensorVal, error) {
		return c.b().emit1(c.scope, &canon.Slice{Starts: []int64{from}, Ends: []int64{to}, Axes: []int64{int64(k)}, Steps: []int64{1}}, base)
	}
	mid, err := slice(lo[k], hi[k])
	if err != nil {
		return nil, err
	}
	inner := append([]int64{}, shape...)
	inner[k] = hi[k] - lo[k]
	innerLo := append([]int64{}, lo...)
	innerHi := append([]int64{}, hi...)
	innerLo[k], innerHi[k] = 0, inner[k]
	if mid, err = assembleBox(c, mid, upd, inner, innerLo, innerHi, k+1); err != nil {
		return nil, err
	}
	var parts []*tensorVal
	if lo[k] > 0 {
		before, err := slice(0, lo[k])
		if err != nil {
			return nil, err
		}
		parts = append(parts, before)
	}
	parts = append(parts, mid)
	if hi[k] < shape[k] {
		after, err := slice(hi[k], shape[k])
		if err != nil {
			return nil, err
		}
		parts = append(parts, after)
	}
	return c.b().emit1(c.scope, &canon.Concat{Axis: int64(k)}, parts...)
}
