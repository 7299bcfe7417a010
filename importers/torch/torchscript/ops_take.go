package torchscript

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Index ops that read or write whole slices or flat positions: take,
// take_along_dim, index_add/copy/fill, put and masked_scatter. Each is a
// Gather/GatherElements or a ScatterElements whose index is broadcast to
// the source's shape, or a Where over a mask.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.take":            entry(opTake, "Reshape", "Gather"),
		"torch.take_along_dim":  entry(opTakeAlongDim, "Reshape", "Expand", "GatherElements"),
		"torch.index_add":       entry(opIndexAdd, "Reshape", "Expand", "ScatterElements", "Mul", "Cast", "Squeeze", "Shape"),
		"torch.index_add_":      entry(inPlace(opIndexAdd), "Reshape", "Expand", "ScatterElements", "Mul", "Cast", "Squeeze", "Shape"),
		"torch.index_copy":      entry(opIndexCopy, "Reshape", "Expand", "ScatterElements", "Cast", "Squeeze", "Shape"),
		"torch.index_copy_":     entry(inPlace(opIndexCopy), "Reshape", "Expand", "ScatterElements", "Cast", "Squeeze", "Shape"),
		"torch.index_fill":      entry(opIndexFill, indexFillKinds...),
		"torch.index_fill_":     entry(inPlace(opIndexFill), indexFillKinds...),
		"torch.put":             entry(opPut, "Reshape", "Less", "Add", "Where", "ScatterElements", "Cast", "Squeeze", "Shape"),
		"torch.put_":            entry(inPlace(opPut), "Reshape", "Less", "Add", "Where", "ScatterElements", "Cast", "Squeeze", "Shape"),
		"torch.masked_scatter":  entry(opMaskedScatter, maskedScatterKinds...),
		"torch.masked_scatter_": entry(inPlace(opMaskedScatter), maskedScatterKinds...),
	})
}

var (
	indexFillKinds     = []string{"Less", "Add", "Where", "Unsqueeze", "Equal", "Cast", "ReduceMax", "Reshape", "Squeeze"}
	maskedScatterKinds = []string{"Expand", "Reshape", "Cast", "CumSum", "Min", "Gather", "Where"}
)

// opTake reads the flattened input at the index (any shape; negative
// entries count from the end, as Gather's do).
func opTake(c *opCall) (value, error) {
	x, err := c.bindInput("input", "index")
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	flat, err := reshape(c, x, -1)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Gather{Axis: 0}, flat, idx)
}

// opTakeAlongDim is gather after broadcasting the input and the indices
// against each other on every axis but dim; without dim both are
// flattened.
func opTakeAlongDim(c *opCall) (value, error) {
	x, err := c.bindInput("input", "indices", "dim=None")
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if c.isNone(2) {
		flat, err := reshape(c, x, -1)
		if err != nil {
			return nil, err
		}
		fi, err := reshape(c, idx, -1)
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.GatherElements{Axis: 0}, flat, fi)
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	is, err := c.shapeOf(idx, "the indices")
	if err != nil {
		return nil, err
	}
	if len(xs) != len(is) {
		return nil, c.errf("the input has rank %d and the indices rank %d; they must match", len(xs), len(is))
	}
	d, err := axisOf(c, 2, len(xs))
	if err != nil {
		return nil, err
	}
	probe := slices.Clone(xs)
	probe[d] = is[d]
	shape, err := broadcastShapes(probe, is)
	if err != nil {
		return nil, c.errf("the input %v and indices %v do not broadcast", xs, is)
	}
	if !slices.Equal(shape, is) {
		if idx, err = c.b().emit1(c.scope, &canon.Expand{Shape: shape}, idx); err != nil {
			return nil, err
		}
	}
	xshape := slices.Clone(shape)
	xshape[d] = xs[d]
	if !slices.Equal(xshape, xs) {
		if x, err = c.b().emit1(c.scope, &canon.Expand{Shape: xshape}, x); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.GatherElements{Axis: d}, x, idx)
}

// sliceIndex turns a 1-D index of slices along axis d into a
// ScatterElements index of the source's shape (known at import, or read
// from the source at run time when it depends on the data).
func sliceIndex(c *opCall, idx, src *tensorVal, d int64) (*tensorVal, error) {
	// An index of unknown rank (squeeze of nonzero's result) is 0-D or 1-D
	// in a model torch ran; either reads the same when reshaped.
	if vi := c.b().info(idx); vi.RankKnown && len(vi.Shape) > 1 {
		return nil, c.errf("the index must be 0-D or 1-D, got rank %d", len(vi.Shape))
	}
	var err error
	rank, err := c.rankOf(src, "the source")
	if err != nil {
		return nil, err
	}
	ishape := make([]int64, rank)
	for i := range ishape {
		ishape[i] = 1
	}
	ishape[d] = -1
	if idx, err = castTo(c, idx, canon.Int64); err != nil {
		return nil, err
	}
	r, err := reshape(c, idx, ishape...)
	if err != nil {
		return nil, err
	}
	if ss, ok := c.b().info(src).StaticShape(); ok {
		return c.b().emit1(c.scope, &canon.Expand{Shape: ss}, r)
	}
	shape, err := c.b().emit1(c.scope, canon.NewShapeOf(), src)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Expand{}, r, shape)
}

// indexScatter reads (input, dim, index, source) and writes the source's
// slices at the index along dim with reduction r.
func indexScatter(c *opCall, r canon.ScatterReduction, alpha float64) (value, error) {
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d := int64(0)
	if len(xs) > 0 {
		if d, err = axisOf(c, 1, len(xs)); err != nil {
			return nil, err
		}
	}
	idx, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	src, err := c.tensor(3)
	if err != nil {
		return nil, err
	}
	if src, err = castTo(c, src, c.b().info(x).DType); err != nil {
		return nil, err
	}
	sr, err := c.rankOf(src, "the source")
	if err != nil {
		return nil, err
	}
	if sr == 0 && len(xs) <= 1 {
		if src, err = reshape(c, src, 1); err != nil {
			return nil, err
		}
		sr = 1
	}
	if sr != max(len(xs), 1) {
		return nil, c.errf("the source has rank %d, the input %d; they must match", sr, len(xs))
	}
	if alpha != 1 {
		a, err := constScalar(c, alpha, c.b().info(x).DType)
		if err != nil {
			return nil, err
		}
		if src, err = arith(c, canon.Mul, src, a); err != nil {
			return nil, err
		}
	}
	full, err := sliceIndex(c, idx, src, d)
	if err != nil {
		return nil, err
	}
	flat := len(xs) == 0
	if flat {
		if x, err = reshape(c, x, 1); err != nil {
			return nil, err
		}
	}
	out, err := c.b().emit1(c.scope, &canon.ScatterElements{Axis: d, Reduction: r}, x, full, src)
	if err != nil || !flat {
		return out, err
	}
	return reshape(c, out)
}

func opIndexAdd(c *opCall) (value, error) {
	if err := c.bind("input", "dim", "index", "source", "alpha=1"); err != nil {
		return nil, err
	}
	alpha, err := c.float(4)
	if err != nil {
		return nil, err
	}
	return indexScatter(c, canon.ScatterAdd, alpha)
}

// opIndexCopy writes the source's slices at the index; with a repeated
// index torch keeps one of them (which is unspecified), as does
// ScatterElements.
func opIndexCopy(c *opCall) (value, error) {
	if err := c.bind("input", "dim", "index", "source"); err != nil {
		return nil, err
	}
	return indexScatter(c, canon.ScatterNone, 1)
}

// opIndexFill sets the slices at the index (negative entries count from
// the end) to a value: a mask of the marked positions along dim, then
// Where.
func opIndexFill(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "index", "value")
	if err != nil {
		return nil, err
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	r := max(len(xs), 1)
	d, err := axisOf(c, 1, r)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	n := int64(1)
	if len(xs) > 0 {
		n = xs[d]
	}
	dt := c.b().info(x).DType
	var v *tensorVal
	if t, ok := c.bound[3].(*tensorVal); ok {
		if v, err = castTo(c, t, dt); err != nil {
			return nil, err
		}
	} else {
		s, ok := scalarOf(c.bound[3])
		if !ok {
			return nil, c.errf("value must be a number or a Tensor, got %s", typeName(c.bound[3]))
		}
		if v, err = constScalar(c, s.f, dt); err != nil {
			return nil, err
		}
	}
	if idx, err = castTo(c, idx, canon.Int64); err != nil {
		return nil, err
	}
	if idx, err = reshape(c, idx, -1); err != nil {
		return nil, err
	}
	neg, err := cmpOp(c, canon.CmpLess, idx, constI64(nil, 0))
	if err != nil {
		return nil, err
	}
	wrapped, err := arith(c, canon.Add, idx, constI64(nil, n))
	if err != nil {
		return nil, err
	}
	if idx, err = where(c, neg, wrapped, idx); err != nil {
		return nil, err
	}
	col, err := unsqueeze(c, idx, 1)
	if err != nil {
		return nil, err
	}
	pos := make([]int64, n)
	for i := range pos {
		pos[i] = int64(i)
	}
	hit, err := cmpOp(c, canon.CmpEqual, col, constI64([]int64{n}, pos...))
	if err != nil {
		return nil, err
	}
	if hit, err = castTo(c, hit, canon.Int64); err != nil {
		return nil, err
	}
	// An empty index marks nothing: ReduceMax over no rows is the
	// smallest int64, which is not 1 either.
	any, err := reduce(c, canon.ReduceMax, hit, false, 0)
	if err != nil {
		return nil, err
	}
	mask, err := cmpOp(c, canon.CmpEqual, any, constI64(nil, 1))
	if err != nil {
		return nil, err
	}
	if len(xs) > 0 {
		mshape := make([]int64, len(xs))
		for i := range mshape {
			mshape[i] = 1
		}
		mshape[d] = n
		if mask, err = reshape(c, mask, mshape...); err != nil {
			return nil, err
		}
	} else if mask, err = reshape(c, mask); err != nil {
		return nil, err
	}
	return where(c, mask, v, x)
}

// opPut writes the source at flat positions of the input (negative ones
// count from the end), adding when accumulate is set.
func opPut(c *opCall) (value, error) {
	x, err := c.bindInput("input", "index", "source", "accumulate=False")
	if err != nil {
		return nil, err
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	src, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	acc, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	n := canon.NumElements(xs)
	flat, err := reshape(c, x, -1)
	if err != nil {
		return nil, err
	}
	if idx, err = castTo(c, idx, canon.Int64); err != nil {
		return nil, err
	}
	if idx, err = reshape(c, idx, -1); err != nil {
		return nil, err
	}
	neg, err := cmpOp(c, canon.CmpLess, idx, constI64(nil, 0))
	if err != nil {
		return nil, err
	}
	wrapped, err := arith(c, canon.Add, idx, constI64(nil, n))
	if err != nil {
		return nil, err
	}
	if idx, err = where(c, neg, wrapped, idx); err != nil {
		return nil, err
	}
	if src, err = castTo(c, src, c.b().info(x).DType); err != nil {
		return nil, err
	}
	if src, err = reshape(c, src, -1); err != nil {
		return nil, err
	}
	r := canon.ScatterNone
	if acc {
		r = canon.ScatterAdd
	}
	out, err := c.b().emit1(c.scope, &canon.ScatterElements{Axis: 0, Reduction: r}, flat, idx, src)
	if err != nil {
		return nil, err
	}
	return reshape(c, out, xs...)
}

// opMaskedScatter fills the positions where the mask (broadcast to the
// input) is true, in row-major order, with the source's leading entries:
// entry i reads the source at the count of true positions before it.
func opMaskedScatter(c *opCall) (value, error) {
	x, err := c.bindInput("input", "mask", "source")
	if err != nil {
		return nil, err
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	mask, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	src, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	ss, err := c.shapeOf(src, "the source")
	if err != nil {
		return nil, err
	}
	total := canon.NumElements(ss)
	if total == 0 {
		return nil, c.errf("the source is empty; masked_scatter needs one entry per true mask position")
	}
	if ms, err := c.shapeOf(mask, "the mask"); err != nil {
		return nil, err
	} else if !slices.Equal(ms, xs) {
		if mask, err = c.b().emit1(c.scope, &canon.Expand{Shape: xs}, mask); err != nil {
			return nil, err
		}
	}
	m, err := reshape(c, mask, -1)
	if err != nil {
		return nil, err
	}
	if m, err = castTo(c, m, canon.Bool); err != nil {
		return nil, err
	}
	ones, err := castTo(c, m, canon.Int64)
	if err != nil {
		return nil, err
	}
	before, err := c.b().emit1(c.scope, &canon.CumSum{Axis: 0, Exclusive: true}, ones)
	if err != nil {
		return nil, err
	}
	// Past the last true position the count may reach the source's size;
	// those entries are not taken, so any valid index does.
	before, err = c.b().emit1(c.scope, &canon.Variadic{Fn: canon.VarMin}, before, constI64(nil, total-1))
	if err != nil {
		return nil, err
	}
	fs, err := reshape(c, src, -1)
	if err != nil {
		return nil, err
	}
	if fs, err = castTo(c, fs, c.b().info(x).DType); err != nil {
		return nil, err
	}
	taken, err := c.b().emit1(c.scope, &canon.Gather{Axis: 0}, fs, before)
	if err != nil {
		return nil, err
	}
	fx, err := reshape(c, x, -1)
	if err != nil {
		return nil, err
	}
	out, err := where(c, m, taken, fx)
	if err != nil {
		return nil, err
	}
	return reshape(c, out, xs...)
}
