package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// splitWhole is torch.split(x, [n], dim) with n known only at run time:
// PyTorch requires the sizes to add up to the dimension's length (it
// raises otherwise), so the one piece is x itself. torchvision's R-CNN
// heads split their batch of boxes by the count of each image's boxes, one
// image's count here. ok is false for the other forms of split.
func splitWhole(c *opCall, x *tensorVal) (v value, ok bool, err error) {
	items, isList := listItems(c.bound[1])
	if !isList || len(items) != 1 {
		return nil, false, nil
	}
	if _, known := toInt(items[0]); known {
		return nil, false, nil
	}
	if _, isDyn := items[0].(*dynInt); !isDyn {
		return nil, false, nil
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, true, err
	}
	d, err := c.int(2)
	if err != nil {
		return nil, true, err
	}
	if _, err := c.axis(d, r); err != nil {
		return nil, true, err
	}
	return &listVal{items: []value{x}}, true, nil
}

// expandAsRunTime is torch.expand_as(x, other) where other's sizes are
// known only at run time (of rank known at import): an Expand to other's
// shape, read at run time. Expand broadcasts both ways, which is torch's
// expand wherever torch does not raise (x's sizes are 1 or other's).
func expandAsRunTime(c *opCall, x, other *tensorVal) (value, error) {
	if _, err := c.rankOf(x, "the input"); err != nil {
		return nil, err
	}
	if _, err := c.rankOf(other, "the other tensor"); err != nil {
		return nil, err
	}
	shape, err := c.b().emit1(c.scope, &canon.ShapeOf{End: math.MaxInt64}, other)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Expand{}, x, shape)
}

// indexStack is stackIndices for torch.index, with index tensors whose
// sizes only a run tells (Mask R-CNN's x[arange(n), labels]): they are
// broadcast at run time, each Expand'ed to the shape of all of them
// Expand'ed together (Expand broadcasts both ways, as torch's indexing
// does). It returns the stacked indices and the rank of the broadcast
// shape.
func indexStack(c *opCall, ts []*tensorVal) (*tensorVal, int, error) {
	idx, b, err := stackIndices(c, ts)
	if err == nil {
		return idx, len(b), nil
	}
	rank := 0
	for _, t := range ts {
		r, rerr := c.rankOf(t, "an index tensor")
		if rerr != nil {
			return nil, 0, err
		}
		rank = max(rank, r)
	}
	bld := c.b()
	all := ts[0]
	for _, t := range ts[1:] {
		s, err := bld.emit1(c.scope, &canon.ShapeOf{End: math.MaxInt64}, t)
		if err != nil {
			return nil, 0, err
		}
		if all, err = bld.emit1(c.scope, &canon.Expand{}, all, s); err != nil {
			return nil, 0, err
		}
	}
	shape, err := bld.emit1(c.scope, &canon.ShapeOf{End: math.MaxInt64}, all)
	if err != nil {
		return nil, 0, err
	}
	parts := make([]*tensorVal, len(ts))
	for k, t := range ts {
		if bld.info(t).DType != canon.Int64 {
			if t, err = bld.emit1(c.scope, &canon.Cast{To: canon.Int64}, t); err != nil {
				return nil, 0, err
			}
		}
		if t, err = bld.emit1(c.scope, &canon.Expand{}, t, shape); err != nil {
			return nil, 0, err
		}
		if parts[k], err = bld.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{int64(rank)}}, t); err != nil {
			return nil, 0, err
		}
	}
	if len(parts) == 1 {
		return parts[0], rank, nil
	}
	out, err := bld.emit1(c.scope, &canon.Concat{Axis: int64(rank)}, parts...)
	return out, rank, err
}

// knownSizes gives out, a tensor made to a shape of run-time and import-time
// sizes (pieces, one per axis), the sizes known at import, which inference
// of the run-time shape cannot see: torchvision's RoI pooling makes its
// result as zeros((number of boxes, channels, 14, 14)), and the mask head's
// convolutions need the 14s.
func knownSizes(b *builder, out *tensorVal, pieces []*tensorVal) {
	info := b.vals[out.name]
	if !info.RankKnown || len(info.Shape) != len(pieces) {
		return
	}
	info.Shape = append([]canon.Dim(nil), info.Shape...)
	for i, p := range pieces {
		k := p.konst
		if k == nil && p.name != "" {
			k = b.vals[p.name].Const
		}
		if k == nil || info.Shape[i].Known() {
			continue
		}
		if v, err := k.Int64s(); err == nil && len(v) == 1 && v[0] >= 0 {
			info.Shape[i] = canon.Dim{Size: v[0]}
		}
	}
	b.vals[out.name] = info
	out.info = info
}

// sizesLike gives out, made to the run-time shape of a tensor of type like
// (zeros_like), the sizes like has, known or named.
func sizesLike(b *builder, out *tensorVal, like canon.ValueInfo) {
	info := b.vals[out.name]
	if !info.RankKnown || !like.RankKnown || len(info.Shape) != len(like.Shape) {
		return
	}
	info.Shape = append([]canon.Dim(nil), like.Shape...)
	b.vals[out.name] = info
	out.info = info
}

// resizeToRunTimeSizes is op (an upsample given output sizes only) to the
// spatial sizes items, some known only at run time (Mask R-CNN pastes each
// mask resized to its box's size): the same Resize, its sizes an input.
func resizeToRunTimeSizes(c *opCall, x *tensorVal, op *canon.Resize, items []value) (value, error) {
	b := c.b()
	pieces := make([]*tensorVal, len(items))
	for i, it := range items {
		if d, ok := it.(*dynInt); ok {
			pieces[i] = d.t
			continue
		}
		n, ok := toInt(it)
		if !ok || n < 0 {
			return nil, c.errf("output size element %d is a %s, not a size", i, typeName(it))
		}
		pieces[i] = &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{n})}
	}
	sizes, err := b.emit1(c.scope, &canon.Concat{Axis: 0}, pieces...)
	if err != nil {
		return nil, err
	}
	op.Axes = spatialAxes(len(items))
	out, err := b.emit(c.scope, op, []*tensorVal{x, nil, sizes}, 1)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// implicitScalar is annotate(int, t) or annotate(float, t) of a tensor t:
// TorchScript writes so the conversion it inserts where a tensor stands
// for a number (torchvision's paste_mask_in_image takes max(box[0], 0)
// of an int64 box), which is int(t) or float(t). ok is false otherwise.
func implicitScalar(c *opCall) (value, bool, error) {
	q, isName := c.bound[0].(*qualName)
	t, isTensor := c.bound[1].(*tensorVal)
	if !isName || !isTensor || (q.path != "int" && q.path != "float") {
		return nil, false, nil
	}
	v, err := c.in.callOp(opTable[q.path], q.path, c.scope, []value{t}, nil)
	return v, true, err
}
