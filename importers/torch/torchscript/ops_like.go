package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Ops that give a tensor another tensor's dtype or shape, or a fresh
// tensor shaped like one: detach and its aliases (no autograd in a
// graph), type_as, reshape_as, view_as, tile, and the empty factories,
// whose values torch leaves unspecified and which are read as zeros.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.detach":          entry(opDetach),
		"torch.detach_":         entry(opDetach),
		"torch.detach_copy":     entry(opCopyOf, "Identity"),
		"torch.alias_copy":      entry(opCopyOf, "Identity"),
		"torch.lift":            entry(opDetach),
		"torch.lift_fresh":      entry(opDetach),
		"torch.lift_fresh_copy": entry(opCopyOf, "Identity"),
		"torch.type_as":         entry(opTypeAs, "Cast"),
		"torch.reshape_as":      entry(opReshapeAs, "Reshape"),
		"torch.view_as":         entry(marksView(opReshapeAs), "Reshape"),
		"torch.tile":            entry(opTile, "Tile", "Unsqueeze"),
		// empty tensors hold whatever memory had; zeros are one such value,
		// and a model that reads them before writing is wrong in torch too.
		"torch.new_empty":         entry(opFull("new_zeros"), "ConstantOfShape", "Concat"),
		"torch.new_empty_strided": entry(opNewEmptyStrided, "ConstantOfShape", "Concat"),
		"torch.empty_like":        entry(opFull("zeros_like"), "ConstantOfShape", "Shape"),
		"torch.empty":             entry(opFull("zeros"), "ConstantOfShape", "Concat"),
		"torch.resolve_conj":      entry(opClone, "Identity"),
		"torch.resolve_neg":       entry(opClone, "Identity"),
		"torch.atleast_1d":        entry(opAtLeast(1), "Reshape"),
		"torch.atleast_2d":        entry(opAtLeast(2), "Reshape"),
		"torch.atleast_3d":        entry(opAtLeast(3), "Reshape"),
		"torch.new_tensor":        entry(opNewTensor),
		"torch.scalar_tensor":     entry(opScalarTensor),
		"torch._shape_as_tensor":  entry(opShapeAsTensor, "Shape"),
		"torch.broadcast_to":      entry(opExpand, "Expand"),
		"torch.expand_copy":       entry(opExpand, "Expand"),
		"torch.view_copy":         entry(opView, "Reshape", "Concat"),
		"torch._reshape_alias":    entry(opReshapeAlias, "Reshape"),
		"torch._unsafe_view":      entry(opView, "Reshape", "Concat"),
		"torch.permute_copy":      entry(opPermute, "Transpose"),
		"torch.squeeze_copy":      entry(opSqueeze, "Squeeze"),
		"torch.unsqueeze_copy":    entry(opUnsqueeze, "Unsqueeze"),
		"torch.transpose_copy":    entry(opTranspose, "Transpose"),
		"torch.t_copy":            entry(opT, "Transpose"),
		"torch.as_strided":        entry(opAsStrided, "Reshape", "Slice", "Squeeze", "Gather"),
		"torch.as_strided_copy":   entry(opAsStrided, "Reshape", "Slice", "Squeeze", "Gather"),
		"torch.numpy_T":           entry(opNumpyT, "Transpose"),
		"torch.adjoint":           entry(opAdjoint, "Transpose"),
	})
}

// callWith runs handler h on new arguments in c's place: ops that are
// another op with rearranged arguments.
func callWith(c *opCall, h opHandler, args []value, kwargs map[string]value) (value, error) {
	return h(&opCall{in: c.in, name: c.name, scope: c.scope, args: args, kwargs: kwargs})
}

// opDetach: detach (and detach_, lift) only drop autograd history; the
// result shares the tensor's storage, so it is the same value.
func opDetach(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	return x, nil
}

// opCopyOf copies; a copy of a constant is the same constant (in-place
// ops on constants are refused, so the two never differ).
func opCopyOf(c *opCall) (value, error) {
	x, err := c.bindInput("input", "memory_format=None")
	if err != nil {
		return nil, err
	}
	if x.konst != nil {
		return &tensorVal{konst: x.konst}, nil
	}
	return callWith(c, opClone, c.args, c.kwargs)
}

// opTypeAs is x.to(other.dtype).
func opTypeAs(c *opCall) (value, error) {
	x, err := c.bindInput("input", "other")
	if err != nil {
		return nil, err
	}
	other, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	dt := c.b().info(other).DType
	if dt == canon.Undefined {
		return nil, c.errf("the dtype of the other tensor is not known at import")
	}
	return castTo(c, x, dt)
}

// opReshapeAs reshapes to the other tensor's (static) shape.
func opReshapeAs(c *opCall) (value, error) {
	x, err := c.bindInput("input", "other")
	if err != nil {
		return nil, err
	}
	other, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(other, "the other tensor")
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Reshape{Shape: shape, AllowZero: true}, x)
}

// opReshapeAlias is _reshape_alias(self, size, stride): a reshape when the
// strides are the contiguous ones of size.
func opReshapeAlias(c *opCall) (value, error) {
	x, err := c.bindInput("input", "size", "stride")
	if err != nil {
		return nil, err
	}
	size, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	stride, err := c.ints(2, 0)
	if err != nil {
		return nil, err
	}
	if !contiguousStrides(size, stride) {
		return nil, c.errf("strides %v are not the contiguous strides of size %v; only a plain reshape is read", stride, size)
	}
	return c.b().emit1(c.scope, &canon.Reshape{Shape: size, AllowZero: true}, x)
}

// contiguousStrides reports whether stride is the row-major stride of
// size (axes of size 1 may have any stride).
func contiguousStrides(size, stride []int64) bool {
	if len(size) != len(stride) {
		return false
	}
	want := int64(1)
	for i := len(size) - 1; i >= 0; i-- {
		if size[i] != 1 && stride[i] != want {
			return false
		}
		want *= size[i]
	}
	return true
}

// opNewEmptyStrided: the strides of an uninitialized tensor change
// nothing a graph can observe.
func opNewEmptyStrided(c *opCall) (value, error) {
	if len(c.args) < 3 {
		return nil, c.errf("needs self, size and stride")
	}
	args := append([]value{c.args[0], c.args[1]}, c.args[3:]...)
	return callWith(c, opFull("new_zeros"), args, c.kwargs)
}

// opTile is repeat with the repeats padded with leading 1s up to the
// input's rank (tile also accepts fewer repeats than axes).
func opTile(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dims")
	if err != nil {
		return nil, err
	}
	reps, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	items := []value{}
	for range r - len(reps) {
		items = append(items, int64(1))
	}
	for _, v := range reps {
		items = append(items, v)
	}
	return callWith(c, opRepeat, []value{x, &listVal{items: items}}, nil)
}

// opAtLeast views a tensor (or each of a list) with at least n axes: a
// scalar becomes (1,...), a vector (1, n) or (1, n, 1), a matrix (m, n, 1).
func opAtLeast(n int) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("tensors"); err != nil {
			return nil, err
		}
		one := func(t *tensorVal) (value, error) {
			shape, err := c.shapeOf(t, "the input")
			if err != nil {
				return nil, err
			}
			if len(shape) >= n {
				return t, nil
			}
			var out []int64
			switch {
			case len(shape) == 0:
				out = []int64{1, 1, 1}[:n]
			case len(shape) == 1 && n == 2:
				out = []int64{1, shape[0]}
			case len(shape) == 1:
				out = []int64{1, shape[0], 1}
			default:
				out = []int64{shape[0], shape[1], 1}
			}
			return c.b().emit1(c.scope, &canon.Reshape{Shape: out, AllowZero: true}, t)
		}
		if t, ok := c.bound[0].(*tensorVal); ok {
			return one(t)
		}
		items, ok := listItems(c.bound[0])
		if !ok {
			return nil, c.errf("argument must be a Tensor or a list of Tensors, got %s", typeName(c.bound[0]))
		}
		out := &listVal{}
		for i, it := range items {
			t, ok := it.(*tensorVal)
			if !ok {
				return nil, c.errf("element %d is a %s, not a Tensor", i, typeName(it))
			}
			v, err := one(t)
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, v)
		}
		return out, nil
	}
}

// opNewTensor: x.new_tensor(data) is a constant made from data (a number
// or nested lists of numbers known at import), in x's dtype unless one is
// given.
func opNewTensor(c *opCall) (value, error) {
	x, err := c.bindInput(append([]string{"input", "data"}, factoryTail...)...)
	if err != nil {
		return nil, err
	}
	dt, err := factoryDType(c, 2, c.b().info(x).DType)
	if err != nil {
		return nil, err
	}
	return constFromData(c, c.bound[1], dt)
}

// opScalarTensor: scalar_tensor(s, dtype=float32) is a 0-D constant.
func opScalarTensor(c *opCall) (value, error) {
	if err := c.bind(append([]string{"s"}, factoryTail...)...); err != nil {
		return nil, err
	}
	dt, err := factoryDType(c, 1, canon.Float32)
	if err != nil {
		return nil, err
	}
	return constFromData(c, c.bound[0], dt)
}

// constFromData makes a constant of dtype dt from a number or a nested,
// rectangular list of numbers.
func constFromData(c *opCall, data value, dt canon.DType) (value, error) {
	var shape []int64
	var flat []float64
	var walk func(v value, depth int) error
	walk = func(v value, depth int) error {
		if s, ok := scalarOf(v); ok {
			if depth != len(shape) {
				return c.errf("the data is not rectangular")
			}
			flat = append(flat, s.f)
			return nil
		}
		items, ok := listItems(v)
		if !ok {
			return c.errf("the data must be numbers or lists of numbers known at import, got %s", typeName(v))
		}
		if depth == len(shape) {
			shape = append(shape, int64(len(items)))
		} else if depth > len(shape) || shape[depth] != int64(len(items)) {
			return c.errf("the data is not rectangular")
		}
		for _, it := range items {
			if err := walk(it, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(data, 0); err != nil {
		return nil, err
	}
	if int64(len(flat)) != canon.NumElements(shape) {
		return nil, c.errf("the data is not rectangular")
	}
	t, err := filledFrom(dt, shape, flat)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	return &tensorVal{konst: t}, nil
}

// opNumpyT reverses all axes (x.T).
func opNumpyT(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(r - 1 - i)
	}
	return c.b().emit1(c.scope, &canon.Transpose{Perm: perm}, x)
}

// opAdjoint swaps the last two axes (the conjugate of a real tensor is
// itself).
func opAdjoint(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	return callWith(c, opTranspose, []value{x, int64(-2), int64(-1)}, nil)
}

// opAsStrided reads as_strided of a graph input (its storage holds its
// entries in order): row-major strides for the
// size are a reshape of a run of that storage from the storage offset;
// other strides (overlapping windows, transposes) a Gather of the entries
// they address. Only a graph input's storage order is known: a view, or
// an elementwise result of a transposed tensor (which keeps its layout),
// is refused.
func opAsStrided(c *opCall) (value, error) {
	x, err := c.bindInput("input", "size", "stride", "storage_offset=None")
	if err != nil {
		return nil, err
	}
	size, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	stride, err := c.ints(2, 0)
	if err != nil {
		return nil, err
	}
	offset := int64(0)
	if !c.isNone(3) {
		if offset, err = c.int(3); err != nil {
			return nil, err
		}
	}
	if _, isView := c.b().views[x.name]; x.name != "" && isView {
		return nil, c.errf("the input is a view, whose storage order this importer does not keep; call contiguous() first or use view")
	}
	if !isGraphInput(c.b(), x) {
		return nil, c.errf("as_strided reads its input's storage, whose order is known at import only for a graph input (an intermediate result can keep a transposed layout, as x.t() * 2 does); index, view or unfold the tensor instead")
	}
	if !contiguousStrides(size, stride) {
		return stridedGather(c, x, size, stride, offset)
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	n, need := canon.NumElements(shape), canon.NumElements(size)
	if offset < 0 || offset+need > n {
		return nil, c.errf("entries %d to %d lie outside the input's %d", offset, offset+need, n)
	}
	flat, err := reshape(c, x, -1)
	if err != nil {
		return nil, err
	}
	if offset != 0 || need != n {
		if flat, err = c.b().emit1(c.scope, &canon.Slice{Starts: []int64{offset}, Ends: []int64{offset + need}, Axes: []int64{0}, Steps: []int64{1}}, flat); err != nil {
			return nil, err
		}
	}
	if len(size) == 0 {
		return reshape(c, flat)
	}
	return reshape(c, flat, size...)
}

// opEmpty is zeros; its memory_format keyword changes no value.
func opEmpty(c *opCall) (value, error) {
	kw := map[string]value{}
	for k, v := range c.kwargs {
		if k != "memory_format" {
			kw[k] = v
		}
	}
	args := c.args
	if len(args) > 5 {
		args = args[:5]
	}
	return callWith(c, opFull("zeros"), args, kw)
}
