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
	lo, hi, _, ok = v.boxSelect(shape)
	return lo, hi, ok
}

// boxSelect is box for views that may also select (x[k] is the box
// k:k+1 along that axis, with the axis dropped from the view): selected
// lists the base axes selects dropped, ascending.
func (v *viewOf) boxSelect(shape []int64) (lo, hi []int64, selected []int64, ok bool) {
	lo = make([]int64, len(shape))
	hi = append([]int64{}, shape...)
	// axes[i] is the base axis of view axis i.
	axes := make([]int, len(shape))
	for i := range axes {
		axes[i] = i
	}
	for _, s := range v.steps {
		if s.axis < 0 || s.axis >= len(axes) {
			return nil, nil, nil, false
		}
		ax := axes[s.axis]
		n := hi[ax] - lo[ax]
		if s.selects {
			k := s.start
			if k < 0 {
				k += n
			}
			if k < 0 || k >= n {
				return nil, nil, nil, false
			}
			lo[ax], hi[ax] = lo[ax]+k, lo[ax]+k+1
			axes = append(axes[:s.axis:s.axis], axes[s.axis+1:]...)
			continue
		}
		if s.step != 1 {
			return nil, nil, nil, false
		}
		a, b := clampSlice(s.start, n), clampSlice(s.end, n)
		if b <= a {
			return nil, nil, nil, false
		}
		lo[ax], hi[ax] = lo[ax]+a, lo[ax]+b
	}
	kept := map[int]bool{}
	for _, ax := range axes {
		kept[ax] = true
	}
	for ax := range shape {
		if !kept[ax] {
			selected = append(selected, int64(ax))
		}
	}
	return lo, hi, selected, true
}

// writeBox is writeThroughView for a view that box describes.
func writeBox(c *opCall, h opHandler, dst *tensorVal, v *viewOf, shape, lo, hi []int64) (value, error) {
	b := c.b()
	res, err := inPlaceResult(c, h)
	if err != nil {
		return nil, err
	}
	_, _, selected, _ := v.boxSelect(shape)
	dropped := map[int64]bool{}
	for _, ax := range selected {
		dropped[ax] = true
	}
	var want []int64
	for i := range shape {
		if !dropped[int64(i)] {
			want = append(want, hi[i]-lo[i])
		}
	}
	if have, ok := b.info(res).StaticShape(); !ok || !sameInts(have, want) {
		return nil, c.errf("the new value's shape %v is not the slice's %v", have, want)
	}
	upd, err := castTo(c, res, b.info(v.base).DType)
	if err != nil {
		return nil, err
	}
	if len(selected) > 0 {
		if upd, err = b.emit1(c.scope, &canon.Unsqueeze{Axes: selected}, upd); err != nil {
			return nil, err
		}
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
