package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// List and repetition ops of the multiscale vision transformers (MViT):
// torch.unbind splits q, k and v apart; torch.repeat_interleave repeats
// each entry along an axis, which a Gather with a constant index states
// exactly when the repeat counts are known at import.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.unbind":            entry(opUnbind, "Split", "Squeeze"),
		"torch.repeat_interleave": entry(opRepeatInterleave, "Gather", "Reshape", "Cast", "Expand", "CumSum", "ReduceSum", "Range", "Unsqueeze", "LessOrEqual"),
		"torch.tensor_split":      entry(opTensorSplit, "Split"),
	})
}

// opUnbind: the list of x[i] along dim, a Split into size-1 pieces each
// squeezed; the size of dim fixes the list's length, so it must be known.
func opUnbind(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=0")
	if err != nil {
		return nil, err
	}
	d, n, err := splitAxis(c, x, 1)
	if err != nil {
		return nil, err
	}
	if n > maxSplitPieces {
		return nil, c.errf("unbinding a dimension of size %d makes more than %d tensors", n, maxSplitPieces)
	}
	if n == 0 {
		return &listVal{}, nil
	}
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = 1
	}
	pieces, err := c.b().emit(c.scope, &canon.Split{Axis: d, Sizes: sizes}, []*tensorVal{x}, int(n))
	if err != nil {
		return nil, err
	}
	items := make([]value, n)
	for i, p := range pieces {
		if items[i], err = c.b().emit1(c.scope, &canon.Squeeze{Axes: []int64{d}}, p); err != nil {
			return nil, err
		}
	}
	return &listVal{items: items}, nil
}

// opTensorSplit covers tensor_split(self, sections or indices, dim=0):
// sections n splits into n pieces, the first ones one longer; indices cut
// before each index (MViT splits off its class token with [1]). Indices
// come as ints or as a tensor known at import.
func opTensorSplit(c *opCall) (value, error) {
	x, err := c.bindInput("input", "indices_or_sections", "dim=0")
	if err != nil {
		return nil, err
	}
	d, n, err := splitAxis(c, x, 2)
	if err != nil {
		return nil, err
	}
	var cuts []int64
	sections, isSections := toInt(c.bound[1])
	if t, ok := c.bound[1].(*tensorVal); ok {
		v, known := constInts(c, t)
		if !known {
			return nil, c.errf("indices_or_sections given by a tensor computed at run time are not supported; pass ints, or a tensor whose values are known at import")
		}
		isSections = len(c.b().info(t).Shape) == 0
		if isSections {
			sections = v[0]
		} else {
			cuts = v
		}
	} else if !isSections {
		if cuts, err = c.ints(1, 0); err != nil {
			return nil, err
		}
	}
	var sizes []int64
	if isSections {
		if sections <= 0 || sections > maxSplitPieces {
			return nil, c.errf("sections must be between 1 and %d, got %d", maxSplitPieces, sections)
		}
		for i := range sections {
			sizes = append(sizes, n/sections+min(1, max(0, n%sections-i)))
		}
		return splitInto(c, x, d, sizes)
	}
	if len(cuts) >= maxSplitPieces {
		return nil, c.errf("%d indices make more than %d pieces", len(cuts), maxSplitPieces)
	}
	var start int64
	for _, k := range cuts {
		if k < 0 {
			return nil, c.errf("negative split index %d is not supported; give indices from the start", k)
		}
		k = min(k, n)
		if k < start {
			return nil, c.errf("decreasing split indices %v (overlapping pieces) are not supported", cuts)
		}
		sizes = append(sizes, k-start)
		start = k
	}
	return splitInto(c, x, d, append(sizes, n-start))
}

// maxRepeatedLength bounds the index a repeat_interleave builds at import.
const maxRepeatedLength = 1 << 22

// opRepeatInterleave covers repeat_interleave(self, repeats, dim=None,
// output_size=None) with repeats an int or a tensor whose values are known
// at import (one count for every entry, or one per entry), and the
// one-argument repeat_interleave(repeats) on a constant tensor.
func opRepeatInterleave(c *opCall) (value, error) {
	x, err := c.bindInput("input", "repeats=None", "dim=None", "output_size=None")
	if err != nil {
		return nil, err
	}
	if c.isNone(1) {
		if _, known := constInts(c, x); !known {
			return repeatAtRunTime(c, nil, x, 0)
		}
		return repeatIndices(c, x)
	}
	if t, ok := c.bound[1].(*tensorVal); ok {
		if _, known := constInts(c, t); !known {
			return repeatAtRunTime(c, x, t, 2)
		}
	}
	counts, err := repeatCounts(c, 1)
	if err != nil {
		return nil, err
	}
	var d int64
	if c.isNone(2) {
		// No dim: torch repeats the entries of the flattened input.
		if x, err = c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{-1}}, x); err != nil {
			return nil, err
		}
	} else if d, _, err = splitAxis(c, x, 2); err != nil {
		return nil, err
	}
	size := c.b().info(x).Shape[d]
	if !size.Known() {
		return nil, c.errf("the size of the repeated dimension is not known at import; give the input shape (--input-shape NAME=D1,D2,...)")
	}
	n := size.Size
	if len(counts) == 1 && n != 1 {
		r := counts[0]
		counts = make([]int64, n)
		for i := range counts {
			counts[i] = r
		}
	}
	if int64(len(counts)) != n {
		return nil, c.errf("repeats has %d values for a dimension of size %d; give one count, or one per entry", len(counts), n)
	}
	index, err := interleavedIndex(c, counts)
	if err != nil {
		return nil, err
	}
	if !c.isNone(3) {
		want, err := c.int(3)
		if err != nil {
			return nil, err
		}
		if want != int64(len(index)) {
			return nil, c.errf("output_size %d differs from the %d entries the repeats give", want, len(index))
		}
	}
	idx := &tensorVal{konst: canon.NewInt64Tensor("", []int64{int64(len(index))}, index)}
	return c.b().emit1(c.scope, &canon.Gather{Axis: d}, x, idx)
}

// repeatCounts reads argument i as repeat counts known at import: an int,
// or a 0-D or 1-D integer tensor with known values.
func repeatCounts(c *opCall, i int) ([]int64, error) {
	if r, ok := toInt(c.bound[i]); ok {
		return []int64{r}, nil
	}
	t, ok := c.bound[i].(*tensorVal)
	if !ok {
		return nil, c.errf("argument %s must be an int or a Tensor, got %s", c.params[i], typeName(c.bound[i]))
	}
	counts, ok := constInts(c, t)
	if !ok {
		return nil, c.errf("repeat counts given by a tensor computed at run time are not supported (the output size would depend on the data); pass an int, or a tensor whose values are known at import")
	}
	return counts, nil
}

// constInts reads the values of a 0-D or 1-D integer tensor known at
// import (a constant or a weight).
func constInts(c *opCall, t *tensorVal) ([]int64, bool) {
	vi := c.b().info(t)
	if t.ref == nil && t.konst == nil || !vi.DType.IsInt() || len(vi.Shape) > 1 {
		return nil, false
	}
	if len(vi.Shape) == 1 && (!vi.Shape[0].Known() || vi.Shape[0].Size > maxRepeatedLength) {
		return nil, false
	}
	k := t.konst
	if k == nil {
		name, err := c.b().valueName(t)
		if err != nil {
			return nil, false
		}
		if k = c.b().vals[name].Const; k == nil {
			return nil, false
		}
	}
	v, err := k.Int64s()
	return v, err == nil
}

// interleavedIndex lists entry i counts[i] times, the index of the Gather.
func interleavedIndex(c *opCall, counts []int64) ([]int64, error) {
	var total int64
	for _, r := range counts {
		if r < 0 {
			return nil, c.errf("repeats must not be negative, got %d", r)
		}
		if total += r; total > maxRepeatedLength {
			return nil, c.errf("the repeated dimension would have more than %d entries", maxRepeatedLength)
		}
	}
	index := make([]int64, 0, total)
	for i, r := range counts {
		for range r {
			index = append(index, int64(i))
		}
	}
	return index, nil
}

// repeatIndices is repeat_interleave(repeats): each position i repeated
// repeats[i] times, computed at import from a constant 1-D tensor.
func repeatIndices(c *opCall, repeats *tensorVal) (value, error) {
	if r, err := c.rankOf(repeats, "repeats"); err == nil && r != 1 {
		return nil, c.errf("repeats must be 1-D, got rank %d", r)
	}
	counts, ok := constInts(c, repeats)
	if !ok {
		return nil, c.errf("repeat_interleave(repeats) on a tensor computed at run time is not supported (its output size depends on the data); only constant repeats can be read")
	}
	index, err := interleavedIndex(c, counts)
	if err != nil {
		return nil, err
	}
	return &tensorVal{konst: canon.NewInt64Tensor("", []int64{int64(len(index))}, index)}, nil
}
