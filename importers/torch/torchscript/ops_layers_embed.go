package torchscript

import (
	"math"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// nn.Embedding and nn.EmbeddingBag.

func init() {
	renormKinds := []string{"Reshape", "Cast", "Equal", "ReduceMax", "ReduceL2", "ReduceL1",
		"ReduceMin", "Abs", "Pow", "ReduceSum", "Not", "Add", "Div", "Greater", "And", "Where", "Mul"}
	bagKinds := []string{"Gather", "Cast", "Slice", "Concat", "Reshape", "GreaterOrEqual", "Less",
		"Equal", "Not", "And", "Mul", "Where", "ReduceSum", "ReduceMax", "Clip", "Div", "Greater"}
	optable.Add(&opTable, map[string]opEntry{
		"torch._embedding_bag":              entry(opEmbeddingBag, bagKinds...),
		"torch._embedding_bag_forward_only": entry(opEmbeddingBag, bagKinds...),
		"torch.embedding":                   entry(opEmbedding, "Gather"),
		"torch.embedding_bag":               entry(opEmbeddingBag, bagKinds...),
		"torch.embedding_renorm_":           entry(opEmbeddingRenorm, renormKinds...),
		"torch.embedding_renorm":            entry(opEmbeddingRenorm, renormKinds...),
	})
}

// opEmbedding maps aten::embedding(weight, indices, padding_idx,
// scale_grad_by_freq, sparse): the weight's rows at the indices (the other
// arguments only matter to gradients).
func opEmbedding(c *opCall) (value, error) {
	if err := c.bind("weight", "indices", "padding_idx=-1", "scale_grad_by_freq=False", "sparse=False"); err != nil {
		return nil, err
	}
	w, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Gather{Axis: 0}, w, idx)
}

// opEmbeddingRenorm maps aten::embedding_renorm_(weight, indices,
// max_norm, norm_type) (F.embedding's max_norm): every row the indices
// name whose norm exceeds max_norm is scaled by max_norm/(norm + 1e-7), in
// place, so later reads of the weight in this call see it (the functional
// embedding_renorm of exported programs returns the new weight). The rows named
// are found at run time: a row is named when some index equals it.
func opEmbeddingRenorm(c *opCall) (value, error) {
	if err := c.bind("weight", "indices", "max_norm", "norm_type"); err != nil {
		return nil, err
	}
	w, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	inPlace := strings.HasSuffix(c.name, "_")
	if inPlace && w.ref == nil && w.konst == nil {
		return nil, c.errf("the weight to renormalize in place is a computed tensor, whose writes this importer cannot route back to the tensor it came from; only a module's weight is renormalized")
	}
	idx, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	maxNorm, err := c.float(2)
	if err != nil {
		return nil, err
	}
	p, err := c.float(3)
	if err != nil {
		return nil, err
	}
	ws, err := c.shapeOf(w, "the weight")
	if err != nil {
		return nil, err
	}
	if len(ws) != 2 {
		return nil, c.errf("the weight has shape %v, want (rows, dim)", ws)
	}
	rows := ws[0]
	e := layerEmit{c}
	flat, err := e.op(&canon.Reshape{Shape: []int64{-1, 1}}, idx)
	if err != nil {
		return nil, err
	}
	if dt := c.b().info(flat).DType; dt != canon.Int64 {
		if flat, err = e.op(&canon.Cast{To: canon.Int64}, flat); err != nil {
			return nil, err
		}
	}
	ids := make([]int64, rows)
	for r := range ids {
		ids[r] = int64(r)
	}
	hits, err := e.cmp(canon.CmpEqual, flat, i64s([]int64{1, rows}, ids))
	if err != nil {
		return nil, err
	}
	hitsF, err := e.op(&canon.Cast{To: canon.Float32}, hits)
	if err != nil {
		return nil, err
	}
	named, err := e.op(&canon.Reduce{Fn: canon.ReduceMax, Axes: []int64{0}}, hitsF)
	if err != nil {
		return nil, err
	}
	if named, err = e.op(&canon.Reshape{Shape: []int64{rows, 1}}, named); err != nil {
		return nil, err
	}
	if named, err = e.cmp(canon.CmpGreater, named, f32(0)); err != nil {
		return nil, err
	}
	norm, err := normAlong(c, w, p, []int64{1}, true)
	if err != nil {
		return nil, err
	}
	over, err := e.cmp(canon.CmpGreater, norm, f32(maxNorm))
	if err != nil {
		return nil, err
	}
	if over, err = e.op(&canon.Logic{Fn: canon.LogicAnd}, over, named); err != nil {
		return nil, err
	}
	padded, err := e.bin(canon.Add, norm, f32(1e-7))
	if err != nil {
		return nil, err
	}
	scale, err := e.bin(canon.Div, f32(maxNorm), padded)
	if err != nil {
		return nil, err
	}
	if scale, err = e.where(over, scale, f32(1)); err != nil {
		return nil, err
	}
	out, err := e.bin(canon.Mul, w, scale)
	if err != nil {
		return nil, err
	}
	if !inPlace {
		return out, nil
	}
	// In place: every later read of this weight sees the new rows.
	*w = *out
	return w, nil
}

// embeddingBag modes, as aten numbers them.
const (
	bagSum = iota
	bagMean
	bagMax
)

// opEmbeddingBag maps aten::embedding_bag(weight, indices, offsets,
// scale_grad_by_freq, mode, sparse, per_sample_weights,
// include_last_offset, padding_idx) for 1-D indices with offsets known
// at run time. Bag b holds positions offsets[b] <= j < offsets[b+1] (the
// last bag runs to the end unless include_last_offset), entries equal to
// padding_idx left out. A (bags, positions) mask selects each bag's rows,
// which are summed, averaged (an empty bag gives 0) or maximized (an
// empty bag gives 0). Only the first result, the bags, is computed.
func opEmbeddingBag(c *opCall) (value, error) {
	if err := c.bind("weight", "indices", "offsets", "scale_grad_by_freq=False", "mode=0", "sparse=False",
		"per_sample_weights=None", "include_last_offset=False", "padding_idx=None"); err != nil {
		return nil, err
	}
	w, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	offsets, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	mode, err := c.int(4)
	if err != nil {
		return nil, err
	}
	psw, err := c.optTensor(6)
	if err != nil {
		return nil, err
	}
	lastOffset, err := c.bool(7)
	if err != nil {
		return nil, err
	}
	padding := int64(-1)
	if !c.isNone(8) {
		if padding, err = c.int(8); err != nil {
			return nil, err
		}
	}
	if mode < bagSum || mode > bagMax {
		return nil, c.errf("mode %d is not sum (0), mean (1) or max (2)", mode)
	}
	if psw != nil && mode != bagSum {
		return nil, c.errf("per_sample_weights are only defined for mode sum (PyTorch refuses them too)")
	}
	is, err := c.shapeOf(idx, "the indices")
	if err != nil {
		return nil, err
	}
	os, err := c.shapeOf(offsets, "the offsets")
	if err != nil {
		return nil, err
	}
	ws, err := c.shapeOf(w, "the weight")
	if err != nil {
		return nil, err
	}
	if len(is) != 1 || len(os) != 1 || len(ws) != 2 {
		return nil, c.errf("indices %v and offsets %v must be 1-D and the weight %v 2-D", is, os, ws)
	}
	n, bags := is[0], os[0]
	if lastOffset {
		bags--
	}
	if bags < 1 {
		return nil, c.errf("offsets %v give no bag", os)
	}
	if err := c.b().a.fits("the bag mask", 4*bags*n*ws[1]); err != nil {
		return nil, c.errf("%v", err)
	}
	e := layerEmit{c}
	if dt := c.b().info(offsets).DType; dt != canon.Int64 {
		if offsets, err = e.op(&canon.Cast{To: canon.Int64}, offsets); err != nil {
			return nil, err
		}
	}
	col := func(t *tensorVal) (*tensorVal, error) { return e.op(&canon.Reshape{Shape: []int64{-1, 1}}, t) }
	starts, err := e.op(&canon.Slice{Starts: []int64{0}, Ends: []int64{bags}, Axes: []int64{0}, Steps: []int64{1}}, offsets)
	if err != nil {
		return nil, err
	}
	var ends *tensorVal
	if lastOffset {
		ends, err = e.op(&canon.Slice{Starts: []int64{1}, Ends: []int64{bags + 1}, Axes: []int64{0}, Steps: []int64{1}}, offsets)
	} else {
		var next *tensorVal
		if next, err = e.op(&canon.Slice{Starts: []int64{1}, Ends: []int64{bags}, Axes: []int64{0}, Steps: []int64{1}}, offsets); err == nil {
			ends, err = e.op(&canon.Concat{Axis: 0}, next, i64s([]int64{1}, []int64{n}))
		}
	}
	if err != nil {
		return nil, err
	}
	if starts, err = col(starts); err != nil {
		return nil, err
	}
	if ends, err = col(ends); err != nil {
		return nil, err
	}
	pos := make([]int64, n)
	for j := range pos {
		pos[j] = int64(j)
	}
	positions := i64s([]int64{1, n}, pos)
	after, err := e.cmp(canon.CmpGreaterOrEqual, positions, starts)
	if err != nil {
		return nil, err
	}
	before, err := e.cmp(canon.CmpLess, positions, ends)
	if err != nil {
		return nil, err
	}
	mask, err := e.op(&canon.Logic{Fn: canon.LogicAnd}, after, before)
	if err != nil {
		return nil, err
	}
	if padding >= 0 {
		pad := &tensorVal{konst: scalarTensor(float64(padding), canon.Int64)}
		idx64 := idx
		if dt := c.b().info(idx).DType; dt != canon.Int64 {
			if idx64, err = e.op(&canon.Cast{To: canon.Int64}, idx); err != nil {
				return nil, err
			}
		}
		isPad, err := e.cmp(canon.CmpEqual, idx64, pad)
		if err != nil {
			return nil, err
		}
		kept, err := e.op(&canon.Not{}, isPad)
		if err != nil {
			return nil, err
		}
		if mask, err = e.op(&canon.Logic{Fn: canon.LogicAnd}, mask, kept); err != nil {
			return nil, err
		}
	}
	rows, err := e.op(&canon.Gather{Axis: 0}, w, idx)
	if err != nil {
		return nil, err
	}
	if psw != nil {
		if psw, err = col(psw); err != nil {
			return nil, err
		}
		if rows, err = e.bin(canon.Mul, rows, psw); err != nil {
			return nil, err
		}
	}
	mask3, err := e.op(&canon.Reshape{Shape: []int64{bags, n, 1}}, mask)
	if err != nil {
		return nil, err
	}
	fill := 0.0
	if mode == bagMax {
		fill = math.Inf(-1)
	}
	picked, err := e.where(mask3, rows, f32(fill))
	if err != nil {
		return nil, err
	}
	if mode == bagSum {
		return bagResult(e.op(&canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{1}}, picked))
	}
	count, err := e.op(&canon.Cast{To: canon.Float32}, mask)
	if err != nil {
		return nil, err
	}
	if count, err = e.op(&canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{1}, KeepDims: true}, count); err != nil {
		return nil, err
	}
	if mode == bagMean {
		sum, err := e.op(&canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{1}}, picked)
		if err != nil {
			return nil, err
		}
		clip := canon.NewClip()
		clip.Min = 1
		atLeastOne, err := e.op(clip, count)
		if err != nil {
			return nil, err
		}
		return bagResult(e.bin(canon.Div, sum, atLeastOne))
	}
	best, err := e.op(&canon.Reduce{Fn: canon.ReduceMax, Axes: []int64{1}}, picked)
	if err != nil {
		return nil, err
	}
	nonEmpty, err := e.cmp(canon.CmpGreater, count, f32(0))
	if err != nil {
		return nil, err
	}
	return bagResult(e.where(nonEmpty, best, f32(0)))
}

// bagResult is embedding_bag's four results, of which only the bags are
// computed: offset2bag, bag_size and max_indices are None, so a model that
// reads them stops there with a message naming them.
func bagResult(y *tensorVal, err error) (value, error) {
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{y, noneVal{}, noneVal{}, noneVal{}}}, nil
}
