package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

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
		broadcastKnownSizes(bld, t, ts)
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

// broadcastKnownSizes gives out, the broadcast of ts to their common shape
// read at run time, the sizes known at import: along an axis, the size
// some t has other than 1 (torch raises when two differ), or 1 when every
// t has 1 there. RPN's proposals[batch_idx, top_n_idx] keeps its batch of
// one image so that the loop over the images has a known trip count.
func broadcastKnownSizes(b *builder, out *tensorVal, ts []*tensorVal) {
	info := b.vals[out.name]
	if !info.RankKnown {
		return
	}
	r := len(info.Shape)
	shape := append([]canon.Dim(nil), info.Shape...)
	for i := range shape {
		if shape[i].Known() {
			continue
		}
		size, allOne := int64(-1), true
		for _, t := range ts {
			ti := b.info(t)
			if !ti.RankKnown {
				allOne = false
				break
			}
			j := i - (r - len(ti.Shape))
			if j < 0 {
				continue
			}
			d := ti.Shape[j]
			switch {
			case !d.Known():
				allOne = false
			case d.Size != 1:
				size = d.Size
			}
		}
		if size >= 0 {
			shape[i] = canon.Dim{Size: size}
		} else if allOne {
			shape[i] = canon.Dim{Size: 1}
		}
	}
	info.Shape = shape
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

// flattenRunTime is torch.flatten(x, start, end) when only the flattened
// axes have sizes known only at run time (RPN's box_cls of one row per
// anchor, flatten(0, -2)): a Reshape whose flattened axis is -1, the other
// sizes known and not 0 (-1 cannot be inferred beside a 0). ok is false
// when x's shape is static or the case is not this one.
func flattenRunTime(c *opCall, x *tensorVal, start, end int64) (value, bool, error) {
	info := c.b().info(x)
	if _, static := info.StaticShape(); static || !info.RankKnown {
		return nil, false, nil
	}
	r := len(info.Shape)
	s, err1 := c.axis(start, r)
	e, err2 := c.axis(end, r)
	if err1 != nil || err2 != nil || e < s {
		return nil, false, nil
	}
	target := []int64{}
	for i, d := range info.Shape {
		switch {
		case int64(i) > s && int64(i) <= e:
		case int64(i) == s:
			target = append(target, -1)
		case !d.Known() || d.Size == 0:
			return nil, false, nil
		default:
			target = append(target, d.Size)
		}
	}
	v, err := c.b().emit1(c.scope, &canon.Reshape{Shape: target}, x)
	return v, true, err
}
