package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Slicing and reshaping views that torch.export programs (and TorchScript
// code indexing tensors with ranges) call: aten::slice, aten::select,
// aten::narrow and aten::unflatten; and copies (aten::clone, aten::alias).
func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.slice":     entry(opSlice, "Slice"),
		"torch.select":    entry(opSelect, "Slice", "Squeeze"),
		"torch.narrow":    entry(opNarrow, "Slice"),
		"torch.unflatten": entry(opUnflatten, "Reshape"),
		"torch.clone":     entry(opClone),
		"torch.alias":     entry(opClone),
	})
}

// opSlice maps slice(input, dim=0, start=None, end=None, step=1). A slice
// of the whole axis (export writes x[:, 0:8] as slice(x, 0, 0, INT_MAX)
// first) is the input itself, even when the axis size is known only at run
// time.
func opSlice(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=0", "start=None", "end=None", "step=1")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	start, end := int64(0), int64(math.MaxInt64)
	if !c.isNone(2) {
		if start, err = c.int(2); err != nil {
			return nil, err
		}
	}
	if !c.isNone(3) {
		if end, err = c.int(3); err != nil {
			return nil, err
		}
	}
	step, err := c.int(4)
	if err != nil {
		return nil, err
	}
	if step <= 0 {
		return nil, c.errf("step must be positive, got %d", step)
	}
	size := c.b().info(x).Shape[d]
	whole := start == 0 && step == 1 && (end == math.MaxInt64 || (size.Known() && end >= size.Size))
	if whole {
		return x, nil
	}
	return c.b().emit1(c.scope, &canon.Slice{Starts: []int64{start}, Ends: []int64{end}, Axes: []int64{d}, Steps: []int64{step}}, x)
}

// opNarrow maps narrow(input, dim, start, length).
func opNarrow(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "start", "length")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	start, err := c.int(2)
	if err != nil {
		return nil, err
	}
	length, err := c.int(3)
	if err != nil {
		return nil, err
	}
	if length < 0 {
		return nil, c.errf("length must not be negative, got %d", length)
	}
	if start < 0 {
		size := c.b().info(x).Shape[d]
		if !size.Known() {
			return nil, c.errf("a negative start on a dimension known only at run time is not supported")
		}
		start += size.Size
	}
	return c.b().emit1(c.scope, &canon.Slice{Starts: []int64{start}, Ends: []int64{start + length}, Axes: []int64{d}, Steps: []int64{1}}, x)
}

// opSelect maps select(input, dim, index) to a one-element Slice and a
// Squeeze of the axis (not a Gather of a scalar index, which MXNet cannot
// hold); a negative index counts from the end, at run time too.
func opSelect(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "index")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	i, err := c.int(2)
	if err != nil {
		return nil, err
	}
	if size := c.b().info(x).Shape[d]; size.Known() && (i >= size.Size || i < -size.Size) {
		return nil, c.errf("index %d is out of range for dimension %d of size %d", i, d, size.Size)
	}
	end := i + 1
	if i == -1 {
		end = math.MaxInt64
	}
	one, err := c.b().emit1(c.scope, &canon.Slice{Starts: []int64{i}, Ends: []int64{end}, Axes: []int64{d}, Steps: []int64{1}}, x)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Squeeze{Axes: []int64{d}}, one)
}

// opUnflatten maps unflatten(input, dim, sizes): a Reshape that keeps the
// axes before dim (0 copies an axis, even one known only at run time),
// splits dim into sizes (one may be -1) and keeps the axes after it, which
// must be known unless sizes has no -1 and one of them is not.
func opUnflatten(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "sizes")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	sizes, err := c.ints(2, 0)
	if err != nil {
		return nil, err
	}
	if len(sizes) == 0 {
		return nil, c.errf("sizes must not be empty")
	}
	inferred := false
	for _, s := range sizes {
		if s == -1 {
			if inferred {
				return nil, c.errf("sizes %v has more than one -1", sizes)
			}
			inferred = true
		} else if s <= 0 {
			return nil, c.errf("sizes %v: sizes must be positive or -1", sizes)
		}
	}
	shape := c.b().info(x).Shape
	target := make([]int64, 0, r+len(sizes)-1)
	for i := int64(0); i < d; i++ {
		target = append(target, 0)
	}
	target = append(target, sizes...)
	for _, dim := range shape[d+1:] {
		switch {
		case dim.Known():
			target = append(target, dim.Size)
		case !inferred:
			target, inferred = append(target, -1), true
		default:
			return nil, c.errf("the axes after dimension %d must have sizes known at import when sizes has a -1", d)
		}
	}
	return c.b().emit1(c.scope, &canon.Reshape{Shape: target}, x)
}

// opClone maps clone(input, *, memory_format=None): the same value, held
// in a new variable so that an in-place op on the copy leaves the original
// alone.
func opClone(c *opCall) (value, error) {
	x, err := c.bindInput("input", "memory_format=None")
	if err != nil {
		return nil, err
	}
	cp := *x
	return &cp, nil
}
