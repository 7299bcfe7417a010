package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Searches and data-dependent selections: bucketize and searchsorted
// count the boundaries below each value; nonzero as a tuple, argwhere;
// unique_consecutive keeps the first of each run; repeat_interleave with
// counts computed at run time gathers, for each output position, the
// number of runs that ended before it.

func init() {
	searchKinds := []string{"Unsqueeze", "GreaterOrEqual", "Greater", "Not", "Cast", "ReduceSum", "GatherElements", "Expand"}
	optable.Add(&opTable, map[string]opEntry{
		"torch.bucketize":          entry(opBucketize, searchKinds...),
		"torch.searchsorted":       entry(opSearchsorted, searchKinds...),
		"torch.nonzero_numpy":      entry(opNonzeroTuple, "NonZero", "Split", "Squeeze"),
		"torch.nonzero_static":     entry(opRefuseNonzeroStatic),
		"torch.argwhere":           entry(opNonZero, "NonZero", "Transpose"),
		"torch.unique_consecutive": entry(opUniqueConsecutive, uniqueConsecutiveKinds...),
	})
}

var uniqueConsecutiveKinds = []string{"Reshape", "Transpose", "Slice", "Equal", "Not", "Cast", "ReduceMax", "Concat",
	"Compress", "CumSum", "Sub", "NonZero", "Squeeze", "Shape"}

// countBelow is, for each value v of values, how many entries b of the
// sorted boundaries (1-D, or a row per value row) satisfy !(b >= v)
// (left) or !(b > v) (right): torch's binary search gives that count for
// sorted boundaries, NaN values included (they land past the end).
func countBelow(c *opCall, boundaries, values *tensorVal, right, perRow bool) (*tensorVal, error) {
	v, err := unsqueeze(c, values, int64(len(c.b().info(values).Shape)))
	if err != nil {
		return nil, err
	}
	b := boundaries
	if perRow {
		if b, err = unsqueeze(c, b, int64(len(c.b().info(b).Shape)-1)); err != nil {
			return nil, err
		}
	}
	fn := canon.CmpGreaterOrEqual
	if right {
		fn = canon.CmpGreater
	}
	if b, v, err = promoteTensors(c, b, v); err != nil {
		return nil, err
	}
	ge, err := cmpOp(c, fn, b, v)
	if err != nil {
		return nil, err
	}
	below, err := c.b().emit1(c.scope, &canon.Not{}, ge)
	if err != nil {
		return nil, err
	}
	n, err := castTo(c, below, canon.Int64)
	if err != nil {
		return nil, err
	}
	return reduce(c, canon.ReduceSum, n, false, int64(len(c.b().info(n).Shape)-1))
}

// valuesArg reads a values argument: a tensor, or a number (the Scalar
// overloads) made a 0-D tensor of the boundaries' dtype.
func valuesArg(c *opCall, i int, like *tensorVal) (*tensorVal, error) {
	if t, ok := c.bound[i].(*tensorVal); ok {
		return t, nil
	}
	s, ok := scalarOf(c.bound[i])
	if !ok {
		return nil, c.errf("argument %s must be a Tensor or a number, got %s", c.params[i], typeName(c.bound[i]))
	}
	return constScalar(c, s.f, c.b().info(like).DType)
}

func searchResult(c *opCall, n *tensorVal, int32Out bool) (value, error) {
	if int32Out {
		return castTo(c, n, canon.Int32)
	}
	return n, nil
}

// opBucketize: the bucket of each value among sorted 1-D boundaries.
func opBucketize(c *opCall) (value, error) {
	if err := c.bind("input", "boundaries", "out_int32=False", "right=False"); err != nil {
		return nil, err
	}
	b, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if r, err := c.rankOf(b, "the boundaries"); err != nil {
		return nil, err
	} else if r != 1 {
		return nil, c.errf("the boundaries must be 1-D, got rank %d", r)
	}
	x, err := valuesArg(c, 0, b)
	if err != nil {
		return nil, err
	}
	i32, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	right, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	n, err := countBelow(c, b, x, right, false)
	if err != nil {
		return nil, err
	}
	return searchResult(c, n, i32)
}

// opSearchsorted: where each value would go in the sorted sequence (1-D,
// or one row per row of values); side="right" is right=True; a sorter
// orders the sequence first.
func opSearchsorted(c *opCall) (value, error) {
	if err := c.bind("sorted_sequence", "input", "out_int32=False", "right=False", "side=None", "sorter=None"); err != nil {
		return nil, err
	}
	seq, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	x, err := valuesArg(c, 1, seq)
	if err != nil {
		return nil, err
	}
	i32, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	right, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	if !c.isNone(4) {
		side, _ := c.bound[4].(string)
		switch side {
		case "left":
			if right {
				return nil, c.errf("side=\"left\" contradicts right=True")
			}
		case "right":
			right = true
		default:
			return nil, c.errf("side must be \"left\" or \"right\", got %v", c.bound[4])
		}
	}
	sr, err := c.rankOf(seq, "the sorted sequence")
	if err != nil {
		return nil, err
	}
	if !c.isNone(5) {
		sorter, err := c.tensor(5)
		if err != nil {
			return nil, err
		}
		if seq, err = c.b().emit1(c.scope, &canon.GatherElements{Axis: int64(sr - 1)}, seq, sorter); err != nil {
			return nil, err
		}
	}
	xr, err := c.rankOf(x, "the values")
	if err != nil {
		return nil, err
	}
	if sr > 1 && sr != xr {
		return nil, c.errf("a %d-D sorted sequence needs values of the same rank, got %d", sr, xr)
	}
	n, err := countBelow(c, seq, x, right, sr > 1)
	if err != nil {
		return nil, err
	}
	return searchResult(c, n, i32)
}

// opNonzeroTuple is nonzero(as_tuple=True): one 1-D index tensor per axis.
func opNonzeroTuple(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if r == 0 {
		return nil, c.errf("nonzero as a tuple of a 0-D tensor is not supported; give the input at least one dimension")
	}
	nz, err := c.b().emit1(c.scope, &canon.NonZero{}, x)
	if err != nil {
		return nil, err
	}
	sizes := make([]int64, r)
	for i := range sizes {
		sizes[i] = 1
	}
	rows, err := c.b().emit(c.scope, &canon.Split{Axis: 0, Sizes: sizes}, []*tensorVal{nz}, r)
	if err != nil {
		return nil, err
	}
	out := &tupleVal{}
	for _, row := range rows {
		s, err := squeeze(c, row, 0)
		if err != nil {
			return nil, err
		}
		out.items = append(out.items, s)
	}
	return out, nil
}

func opRefuseNonzeroStatic(c *opCall) (value, error) {
	return nil, c.errf("nonzero_static pads to a fixed size with a fill value, which no canonical op expresses; use torch.nonzero")
}

// opUniqueConsecutive keeps the first entry (or slice along dim) of each
// run of equal ones: a run starts where an entry differs from the one
// before it (NaN differs from itself, as in torch). The inverse index of
// an entry is the number of run starts up to it, less one; a run's count
// is the distance from its start to the next.
func opUniqueConsecutive(c *opCall) (value, error) {
	x, err := c.bindInput("input", "return_inverse=False", "return_counts=False", "dim=None")
	if err != nil {
		return nil, err
	}
	inverse, err := c.bool(1)
	if err != nil {
		return nil, err
	}
	counts, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	t := x
	d := int64(0)
	if c.isNone(3) {
		if t, err = reshape(c, x, -1); err != nil {
			return nil, err
		}
		shape = []int64{canon.NumElements(shape)}
	} else if d, err = axisOf(c, 3, len(shape)); err != nil {
		return nil, err
	}
	n := shape[d]
	if n == 0 {
		return nil, c.errf("unique_consecutive of an empty dimension is not supported")
	}
	// Move dim first and flatten the rest: rows are the entries compared.
	perm := []int64{d}
	for i := range int64(len(shape)) {
		if i != d {
			perm = append(perm, i)
		}
	}
	rows, err := transpose(c, t, perm)
	if err != nil {
		return nil, err
	}
	if rows, err = reshape(c, rows, n, -1); err != nil {
		return nil, err
	}
	slice := func(v *tensorVal, start, end int64) (*tensorVal, error) {
		return c.b().emit1(c.scope, &canon.Slice{Starts: []int64{start}, Ends: []int64{end}, Axes: []int64{0}, Steps: []int64{1}}, v)
	}
	prev, err := slice(rows, 0, n-1)
	if err != nil {
		return nil, err
	}
	next, err := slice(rows, 1, n)
	if err != nil {
		return nil, err
	}
	eq, err := cmpOp(c, canon.CmpEqual, prev, next)
	if err != nil {
		return nil, err
	}
	ne, err := c.b().emit1(c.scope, &canon.Not{}, eq)
	if err != nil {
		return nil, err
	}
	ni, err := castTo(c, ne, canon.Int64)
	if err != nil {
		return nil, err
	}
	changed, err := reduce(c, canon.ReduceMax, ni, false, 1)
	if err != nil {
		return nil, err
	}
	starts, err := c.b().emit1(c.scope, &canon.Concat{Axis: 0}, constI64([]int64{1}, 1), changed)
	if err != nil {
		return nil, err
	}
	keep, err := castTo(c, starts, canon.Bool)
	if err != nil {
		return nil, err
	}
	vals, err := c.b().emit1(c.scope, &canon.Compress{Axis: d}, t, keep)
	if err != nil {
		return nil, err
	}
	res := []value{vals, emptyInt64(), emptyInt64()}
	if inverse {
		run, err := c.b().emit1(c.scope, &canon.CumSum{Axis: 0}, starts)
		if err != nil {
			return nil, err
		}
		if run, err = arith(c, canon.Sub, run, constI64(nil, 1)); err != nil {
			return nil, err
		}
		if c.isNone(3) {
			full, err := c.shapeOf(x, "the input")
			if err != nil {
				return nil, err
			}
			if len(full) == 0 {
				run, err = reshape(c, run)
			} else {
				run, err = reshape(c, run, full...)
			}
			if err != nil {
				return nil, err
			}
		}
		res[1] = run
	}
	if counts {
		nz, err := c.b().emit1(c.scope, &canon.NonZero{}, starts)
		if err != nil {
			return nil, err
		}
		first, err := squeeze(c, nz, 0)
		if err != nil {
			return nil, err
		}
		ends, err := c.b().emit1(c.scope, &canon.Concat{Axis: 0}, first, constI64([]int64{1}, n))
		if err != nil {
			return nil, err
		}
		hi, err := c.b().emit1(c.scope, &canon.Slice{Starts: []int64{1}, Ends: []int64{1 << 62}, Axes: []int64{0}, Steps: []int64{1}}, ends)
		if err != nil {
			return nil, err
		}
		if res[2], err = arith(c, canon.Sub, hi, first); err != nil {
			return nil, err
		}
	}
	return &tupleVal{items: res}, nil
}
