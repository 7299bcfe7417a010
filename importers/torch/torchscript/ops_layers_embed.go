package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// nn.Embedding and nn.EmbeddingBag.

func init() {
	bagKinds := []string{"Gather", "Cast", "Slice", "Concat", "Reshape", "GreaterOrEqual", "Less",
		"Equal", "Not", "And", "Mul", "Where", "ReduceSum", "ReduceMax", "Clip", "Div", "Greater"}
	optable.Add(&opTable, map[string]opEntry{
		"torch._embedding_bag":              entry(opEmbeddingBag, bagKinds...),
		"torch._embedding_bag_forward_only": entry(opEmbeddingBag, bagKinds...),
		"torch.embedding":                   entry(opEmbedding, "Gather"),
		"torch.embedding_bag":               entry(opEmbeddingBag, bagKinds...),
		"torch.embedding_renorm_":           entry(opEmbeddingRenorm),
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

// opEmbeddingRenorm refuses embedding_renorm_ (F.embedding's max_norm).
func opEmbeddingRenorm(c *opCall) (value, error) {
	return nil, c.errf("max_norm rescales the referenced weight rows in place, which changes the weight for every later use in the model; no canonical form tracks that (drop max_norm, or renormalize the weight before saving)")
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
