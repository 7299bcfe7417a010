package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Sorting and order statistics. TopK with k the whole axis is a stable
// sort (ties keep their order, in both directions), which is torch's
// sort(stable=True) and, for axes of at most 16 entries, its default sort
// too (the CPU sorts short rows by insertion). torch puts NaN after every
// number ascending and before them descending; for floating inputs the
// sort is done twice, by value with NaN read as 0 and then by NaN-ness
// (both stable), which orders NaN as torch does.

func init() {
	sortKinds := []string{"TopK", "IsNaN", "Where", "Cast", "GatherElements", "Shape"}
	optable.Add(&opTable, map[string]opEntry{
		"torch.sort":      entry(opSort, sortKinds...),
		"torch.argsort":   entry(opArgsort, sortKinds...),
		"torch.msort":     entry(opMsort, sortKinds...),
		"torch.median":    entry(opMedian(false), append(sortKinds, "Reshape", "Slice", "Squeeze", "Greater", "ReduceSum", "Sub", "Div")...),
		"torch.nanmedian": entry(opMedian(true), append(sortKinds, "Reshape", "Slice", "Squeeze", "Greater", "ReduceSum", "Sub", "Div")...),
		"torch.kthvalue":  entry(opKthvalue, append(sortKinds, "Slice", "Squeeze")...),
		"torch.mode":      entry(opMode, append(sortKinds, "Transpose", "Unsqueeze", "Equal", "ReduceSum", "ArgMax", "ReduceMax", "Squeeze")...),
	})
}

// sortAxis normalizes argument i as the axis to sort and returns its
// length, which must be known at import (the other axes need not be).
func sortAxis(c *opCall, x *tensorVal, i int) (int64, int64, error) {
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return 0, 0, err
	}
	if r == 0 {
		return 0, 1, nil
	}
	d, err := axisOf(c, i, r)
	if err != nil {
		return 0, 0, err
	}
	size := c.b().info(x).Shape[d]
	if !size.Known() {
		return 0, 0, c.errf("the size of dimension %d is not known at import; give the input shape (--input-shape NAME=D1,D2,...)", d)
	}
	return d, size.Size, nil
}

// sortedLength is sortAxis for sort, argsort and topk, which also read an
// axis whose size is known only at run time: the length is then -1.
func sortedLength(c *opCall, x *tensorVal, i int) (int64, int64, error) {
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return 0, 0, err
	}
	if r == 0 {
		return 0, 1, nil
	}
	d, err := axisOf(c, i, r)
	if err != nil {
		return 0, 0, err
	}
	if size := c.b().info(x).Shape[d]; size.Known() {
		return d, size.Size, nil
	}
	return d, -1, nil
}

// stableSort sorts x along axis d (n entries; -1 when known only at run
// time) as torch's stable sort does and returns the values and their
// indices.
func stableSort(c *opCall, x *tensorVal, d, n int64, descending bool) (*tensorVal, *tensorVal, error) {
	var length *tensorVal
	if n < 0 {
		var err error
		if length, err = c.b().emit1(c.scope, &canon.ShapeOf{Start: d, End: d + 1}, x); err != nil {
			return nil, nil, err
		}
	}
	topk := func(t *tensorVal) ([]*tensorVal, error) {
		if length != nil {
			return c.b().emit(c.scope, &canon.TopK{Axis: d, Largest: descending, Sorted: true}, []*tensorVal{t, length}, 2)
		}
		return c.b().emit(c.scope, &canon.TopK{Axis: d, K: n, Largest: descending, Sorted: true}, []*tensorVal{t}, 2)
	}
	if !c.b().info(x).DType.IsFloat() {
		outs, err := topk(x)
		if err != nil {
			return nil, nil, err
		}
		return outs[0], outs[1], nil
	}
	nan, err := c.b().emit1(c.scope, &canon.IsNaN{}, x)
	if err != nil {
		return nil, nil, err
	}
	zero, err := constScalar(c, 0, c.b().info(x).DType)
	if err != nil {
		return nil, nil, err
	}
	key, err := where(c, nan, zero, x)
	if err != nil {
		return nil, nil, err
	}
	first, err := topk(key)
	if err != nil {
		return nil, nil, err
	}
	flag, err := castTo(c, nan, canon.Int64)
	if err != nil {
		return nil, nil, err
	}
	flag, err = c.b().emit1(c.scope, &canon.GatherElements{Axis: d}, flag, first[1])
	if err != nil {
		return nil, nil, err
	}
	second, err := topk(flag)
	if err != nil {
		return nil, nil, err
	}
	idx, err := c.b().emit1(c.scope, &canon.GatherElements{Axis: d}, first[1], second[1])
	if err != nil {
		return nil, nil, err
	}
	vals, err := c.b().emit1(c.scope, &canon.GatherElements{Axis: d}, x, idx)
	if err != nil {
		return nil, nil, err
	}
	return vals, idx, nil
}

// sortArgs reads (input, dim, descending) of sort/argsort, and of their
// stable overloads, whose stable flag comes second when a .pt2 graph
// passes it by position.
func sortArgs(c *opCall) (*tensorVal, int64, int64, bool, error) {
	if len(c.args) > 1 {
		if _, isBool := c.args[1].(bool); isBool || isNoneVal(c.args[1]) {
			// sort.stable(self, stable, dim, descending)
			if err := c.bind("input", "stable", "dim=-1", "descending=False"); err != nil {
				return nil, 0, 0, false, err
			}
			c.bound = append(c.bound[:1], c.bound[2:]...)
			c.params = append(c.params[:1], c.params[2:]...)
		} else if err := c.bind("input", "dim=-1", "descending=False", "stable=None"); err != nil {
			return nil, 0, 0, false, err
		}
	} else if err := c.bind("input", "dim=-1", "descending=False", "stable=None"); err != nil {
		return nil, 0, 0, false, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, 0, 0, false, err
	}
	d, n, err := sortedLength(c, x, 1)
	if err != nil {
		return nil, 0, 0, false, err
	}
	desc, err := c.bool(2)
	if err != nil {
		return nil, 0, 0, false, err
	}
	return x, d, n, desc, nil
}

func isNoneVal(v value) bool {
	_, ok := v.(noneVal)
	return ok
}

func opSort(c *opCall) (value, error) {
	x, d, n, desc, err := sortArgs(c)
	if err != nil {
		return nil, err
	}
	if len(c.b().info(x).Shape) == 0 {
		return &tupleVal{items: []value{x, constI64(nil, 0)}}, nil
	}
	vals, idx, err := stableSort(c, x, d, n, desc)
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{vals, idx}}, nil
}

func opArgsort(c *opCall) (value, error) {
	x, d, n, desc, err := sortArgs(c)
	if err != nil {
		return nil, err
	}
	if len(c.b().info(x).Shape) == 0 {
		return constI64(nil, 0), nil
	}
	_, idx, err := stableSort(c, x, d, n, desc)
	return idx, err
}

// opMsort sorts along the first axis.
func opMsort(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		return x, nil
	}
	vals, _, err := stableSort(c, x, 0, shape[0], false)
	return vals, err
}

// pick takes position p (a constant) of axis d from vals and idx, keeping
// the axis when keep is set.
func pick(c *opCall, vals, idx *tensorVal, d, p int64, keep bool) (*tensorVal, *tensorVal, error) {
	sl := &canon.Slice{Starts: []int64{p}, Ends: []int64{p + 1}, Axes: []int64{d}, Steps: []int64{1}}
	v, err := c.b().emit1(c.scope, sl, vals)
	if err != nil {
		return nil, nil, err
	}
	i, err := c.b().emit1(c.scope, &canon.Slice{Starts: sl.Starts, Ends: sl.Ends, Axes: sl.Axes, Steps: sl.Steps}, idx)
	if err != nil {
		return nil, nil, err
	}
	if keep {
		return v, i, nil
	}
	if v, err = squeeze(c, v, d); err != nil {
		return nil, nil, err
	}
	if i, err = squeeze(c, i, d); err != nil {
		return nil, nil, err
	}
	return v, i, nil
}

// opMedian is torch.median / nanmedian: the lower median ((n-1)/2-th
// smallest) and its index, that of the entry at that place in a stable
// sort (torch breaks ties by index too). median returns NaN (the first
// one) when a row holds any; nanmedian takes the lower median of the
// numbers and NaN only for a row of NaN. Without dim: the median of all
// entries, a 0-D value.
func opMedian(ignoreNaN bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "dim=None", "keepdim=False")
		if err != nil {
			return nil, err
		}
		whole := c.isNone(1)
		var d, n int64
		if whole {
			shape, err := c.shapeOf(x, "the input")
			if err != nil {
				return nil, err
			}
			n = canon.NumElements(shape)
			if x, err = reshape(c, x, n); err != nil {
				return nil, err
			}
		} else if d, n, err = sortAxis(c, x, 1); err != nil {
			return nil, err
		}
		if len(c.b().info(x).Shape) == 0 {
			return &tupleVal{items: []value{x, constI64(nil, 0)}}, nil
		}
		if n == 0 {
			return nil, c.errf("the median of an empty dimension is undefined")
		}
		keep, err := c.bool(2)
		if err != nil {
			return nil, err
		}
		vals, idx, err := stableSort(c, x, d, n, false)
		if err != nil {
			return nil, err
		}
		var v, i *tensorVal
		if !c.b().info(x).DType.IsFloat() {
			v, i, err = pick(c, vals, idx, d, (n-1)/2, keep || whole)
		} else {
			v, i, err = nanAwareMedian(c, x, vals, idx, d, n, ignoreNaN, keep || whole)
		}
		if err != nil {
			return nil, err
		}
		if whole {
			return squeeze(c, v, 0)
		}
		return &tupleVal{items: []value{v, i}}, nil
	}
}

// nanAwareMedian picks the median place computed from each row's NaN
// count: with c NaN (sorted last), median takes place n-c (the first NaN)
// when c > 0, nanmedian place (n-c-1)/2 (place 0 when all are NaN).
func nanAwareMedian(c *opCall, x, vals, idx *tensorVal, d, n int64, ignoreNaN, keep bool) (*tensorVal, *tensorVal, error) {
	nan, err := c.b().emit1(c.scope, &canon.IsNaN{}, x)
	if err != nil {
		return nil, nil, err
	}
	cnt, err := castTo(c, nan, canon.Int64)
	if err != nil {
		return nil, nil, err
	}
	if cnt, err = reduce(c, canon.ReduceSum, cnt, true, d); err != nil {
		return nil, nil, err
	}
	numbers, err := arith(c, canon.Sub, constI64(nil, n), cnt)
	if err != nil {
		return nil, nil, err
	}
	hasNaN, err := cmpOp(c, canon.CmpGreater, cnt, constI64(nil, 0))
	if err != nil {
		return nil, nil, err
	}
	var place *tensorVal
	if ignoreNaN {
		some, err := cmpOp(c, canon.CmpGreater, numbers, constI64(nil, 0))
		if err != nil {
			return nil, nil, err
		}
		less, err := arith(c, canon.Sub, numbers, constI64(nil, 1))
		if err != nil {
			return nil, nil, err
		}
		half, err := arith(c, canon.Div, less, constI64(nil, 2))
		if err != nil {
			return nil, nil, err
		}
		if place, err = where(c, some, half, constI64(nil, 0)); err != nil {
			return nil, nil, err
		}
	} else if place, err = where(c, hasNaN, numbers, constI64(nil, (n-1)/2)); err != nil {
		return nil, nil, err
	}
	v, err := c.b().emit1(c.scope, &canon.GatherElements{Axis: d}, vals, place)
	if err != nil {
		return nil, nil, err
	}
	i, err := c.b().emit1(c.scope, &canon.GatherElements{Axis: d}, idx, place)
	if err != nil {
		return nil, nil, err
	}
	if keep {
		return v, i, nil
	}
	if v, err = squeeze(c, v, d); err != nil {
		return nil, nil, err
	}
	if i, err = squeeze(c, i, d); err != nil {
		return nil, nil, err
	}
	return v, i, nil
}

// opKthvalue is the k-th smallest entry (NaN largest) and its index; for
// tied entries torch's index is whichever its selection algorithm meets,
// here the k-th place of a stable sort.
func opKthvalue(c *opCall) (value, error) {
	x, err := c.bindInput("input", "k", "dim=-1", "keepdim=False")
	if err != nil {
		return nil, err
	}
	k, err := c.int(1)
	if err != nil {
		return nil, err
	}
	d, n, err := sortAxis(c, x, 2)
	if err != nil {
		return nil, err
	}
	if k < 1 || k > n {
		return nil, c.errf("k=%d is out of range for a dimension of size %d", k, n)
	}
	keep, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	if len(c.b().info(x).Shape) == 0 {
		return &tupleVal{items: []value{x, constI64(nil, 0)}}, nil
	}
	vals, idx, err := stableSort(c, x, d, n, false)
	if err != nil {
		return nil, err
	}
	v, i, err := pick(c, vals, idx, d, k-1, keep)
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{v, i}}, nil
}

// maxModeLength bounds the axis torch.mode compares pairwise.
const maxModeLength = 4096

// opMode is the most frequent value along dim (the smallest of equally
// frequent ones) and the index of its last occurrence, as torch's CPU
// kernel gives them (it scans a sorted copy; rows of up to 16 entries are
// sorted stably, so the last of a run is the last occurrence). Counts come
// from comparing every pair of entries.
func opMode(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=-1", "keepdim=False")
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		return &tupleVal{items: []value{x, constI64(nil, 0)}}, nil
	}
	d, n, err := sortAxis(c, x, 1)
	if err != nil {
		return nil, err
	}
	if n == 0 || n > maxModeLength {
		return nil, c.errf("mode over a dimension of %d entries is not supported (1 to %d)", n, maxModeLength)
	}
	keep, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	r := int64(len(shape))
	perm := make([]int64, 0, r)
	for i := range r {
		if i != d {
			perm = append(perm, i)
		}
	}
	perm = append(perm, d)
	t, err := transpose(c, x, perm)
	if err != nil {
		return nil, err
	}
	last := r - 1
	sorted, _, err := stableSort(c, t, last, n, false)
	if err != nil {
		return nil, err
	}
	a, err := unsqueeze(c, sorted, last+1)
	if err != nil {
		return nil, err
	}
	b, err := unsqueeze(c, sorted, last)
	if err != nil {
		return nil, err
	}
	eq, err := cmpOp(c, canon.CmpEqual, a, b)
	if err != nil {
		return nil, err
	}
	if eq, err = castTo(c, eq, canon.Int64); err != nil {
		return nil, err
	}
	counts, err := reduce(c, canon.ReduceSum, eq, false, last+1)
	if err != nil {
		return nil, err
	}
	// The first place of the highest count in sorted order is the smallest
	// of the most frequent values.
	at, err := c.b().emit1(c.scope, &canon.ArgReduce{Axis: last, KeepDims: true}, counts)
	if err != nil {
		return nil, err
	}
	val, err := c.b().emit1(c.scope, &canon.GatherElements{Axis: last}, sorted, at)
	if err != nil {
		return nil, err
	}
	same, err := cmpOp(c, canon.CmpEqual, t, val)
	if err != nil {
		return nil, err
	}
	pos := make([]int64, n)
	for i := range pos {
		pos[i] = int64(i)
	}
	at2, err := where(c, same, constI64([]int64{n}, pos...), constI64(nil, -1))
	if err != nil {
		return nil, err
	}
	idx, err := reduce(c, canon.ReduceMax, at2, true, last)
	if err != nil {
		return nil, err
	}
	// Back to the input's axis order, dim kept with size 1.
	back := inversePerm(perm)
	if val, err = transpose(c, val, back); err != nil {
		return nil, err
	}
	if idx, err = transpose(c, idx, back); err != nil {
		return nil, err
	}
	if !keep {
		if val, err = squeeze(c, val, d); err != nil {
			return nil, err
		}
		if idx, err = squeeze(c, idx, d); err != nil {
			return nil, err
		}
	}
	return &tupleVal{items: []value{val, idx}}, nil
}

// topKOrderingNaN is topk of floating data of known rank (at least 1):
// torch ranks NaN above every
// number (first when largest, last otherwise), so the k entries are the
// first k of the NaN-aware stable sort. Tied entries come in index order;
// torch's order for them is unspecified.
func topKOrderingNaN(c *opCall, x *tensorVal, d, k int64, largest bool) (value, error) {
	vi := c.b().info(x)
	n := int64(-1)
	if vi.Shape[d].Known() {
		if n = vi.Shape[d].Size; k > n {
			return nil, c.errf("k=%d is out of range for a dimension of size %d", k, n)
		}
	}
	vals, idx, err := stableSort(c, x, d, n, largest)
	if err != nil {
		return nil, err
	}
	if k == n {
		return &tupleVal{items: []value{vals, idx}}, nil
	}
	first := func(t *tensorVal) (*tensorVal, error) {
		return c.b().emit1(c.scope, &canon.Slice{Starts: []int64{0}, Ends: []int64{k}, Axes: []int64{d}, Steps: []int64{1}}, t)
	}
	if vals, err = first(vals); err != nil {
		return nil, err
	}
	if idx, err = first(idx); err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{vals, idx}}, nil
}
