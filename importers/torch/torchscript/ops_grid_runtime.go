package torchscript

import "github.com/modelbridge/modelbridge/canon"

// meshgridRunTime is meshgridOf for vectors whose lengths only a run
// tells: each vector, flattened, is unsqueezed to its axis of the grid and
// expanded to the grid's shape, the concatenation of their lengths.
func meshgridRunTime(c *opCall, ts []*tensorVal, xy bool) ([]*tensorVal, error) {
	b := c.b()
	n := len(ts)
	axisOf := func(i int) int {
		if xy && n > 1 && i < 2 {
			return 1 - i
		}
		return i
	}
	flats := make([]*tensorVal, n)
	lens := make([]*tensorVal, n)
	for i, t := range ts {
		vi := b.info(t)
		if !vi.RankKnown || len(vi.Shape) > 1 {
			return nil, c.errf("tensor %d: meshgrid takes 0-D or 1-D tensors (of known rank)", i)
		}
		f := t
		var err error
		if len(vi.Shape) == 0 {
			if f, err = b.emit1(c.scope, &canon.Reshape{Shape: []int64{1}}, t); err != nil {
				return nil, err
			}
		}
		flats[i] = f
		if lens[axisOf(i)], err = b.emit1(c.scope, canon.NewShapeOf(), f); err != nil {
			return nil, err
		}
	}
	grid, err := b.emit1(c.scope, &canon.Concat{Axis: 0}, lens...)
	if err != nil {
		return nil, err
	}
	out := make([]*tensorVal, n)
	for i, f := range flats {
		var axes []int64
		for k := 0; k < n; k++ {
			if k != axisOf(i) {
				axes = append(axes, int64(k))
			}
		}
		r := f
		if len(axes) > 0 {
			if r, err = b.emit1(c.scope, &canon.Unsqueeze{Axes: axes}, f); err != nil {
				return nil, err
			}
		}
		outs, err := b.emit(c.scope, &canon.Expand{}, []*tensorVal{r, grid}, 1)
		if err != nil {
			return nil, err
		}
		out[i] = outs[0]
	}
	return out, nil
}

// splitRunTime is torch.split(x, sizes, dim) with sizes known only at run
// time (RetinaNet splits its head's outputs by the anchors of each feature
// level): a Split whose sizes are an input. Sizes that do not add up to
// the dimension fail at run time, as torch fails. One size must be the
// whole dimension (torch raises otherwise), so the one piece is x itself,
// its known sizes kept (torchvision's R-CNN heads split their batch of
// boxes by one image's count).
func splitRunTime(c *opCall, x *tensorVal, items []value) (value, error) {
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d, err := c.int(2)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	if len(items) == 1 {
		return &listVal{items: []value{x}}, nil
	}
	if len(items) > maxSplitPieces {
		return nil, c.errf("split into %d pieces, more than %d", len(items), maxSplitPieces)
	}
	parts := make([]*tensorVal, len(items))
	for i, it := range items {
		t, ok := intTensor(it)
		if !ok {
			return nil, c.errf("split size %d is a %s, not an int", i, typeName(it))
		}
		parts[i] = t
	}
	sizes, err := c.b().emit1(c.scope, &canon.Concat{Axis: 0}, parts...)
	if err != nil {
		return nil, err
	}
	outs, err := c.b().emit(c.scope, &canon.Split{Axis: d}, []*tensorVal{x, sizes}, len(items))
	if err != nil {
		return nil, err
	}
	out := make([]value, len(outs))
	for i, o := range outs {
		out[i] = o
	}
	return &listVal{items: out}, nil
}
