package torchscript

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Small builders the expansions of the tensor-manipulation ops share.

// filledFrom makes a tensor of dtype dt and shape from values (each
// converted as scalarAs does).
func filledFrom(dt canon.DType, shape []int64, values []float64) (*canon.Tensor, error) {
	if int64(len(values)) != canon.NumElements(shape) {
		return nil, fmt.Errorf("%d values for shape %v", len(values), shape)
	}
	size := dt.Size()
	data := make([]byte, 0, size*len(values))
	for _, v := range values {
		s, err := scalarAs(v, dt)
		if err != nil {
			return nil, err
		}
		data = append(data, s.Data...)
	}
	return &canon.Tensor{DType: dt, Shape: append([]int64{}, shape...), Data: data}, nil
}

// constI64 is an int64 constant of the given shape.
func constI64(shape []int64, v ...int64) *tensorVal {
	return &tensorVal{konst: canon.NewInt64Tensor("", append([]int64{}, shape...), v)}
}

// constScalar is a 0-D constant v of dtype dt.
func constScalar(c *opCall, v float64, dt canon.DType) (*tensorVal, error) {
	t, err := scalarAs(v, dt)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	return &tensorVal{konst: t}, nil
}

// arith emits an elementwise binary op.
func arith(c *opCall, fn canon.BinaryFn, a, b *tensorVal) (*tensorVal, error) {
	return c.b().emit1(c.scope, &canon.Binary{Fn: fn}, a, b)
}

// cmpOp emits a comparison (a bool tensor).
func cmpOp(c *opCall, fn canon.CompareFn, a, b *tensorVal) (*tensorVal, error) {
	return c.b().emit1(c.scope, &canon.Compare{Fn: fn}, a, b)
}

// where emits cond ? x : y.
func where(c *opCall, cond, x, y *tensorVal) (*tensorVal, error) {
	return c.b().emit1(c.scope, &canon.Where{}, cond, x, y)
}

// reduce emits a reduction over axes.
func reduce(c *opCall, fn canon.ReduceFn, x *tensorVal, keep bool, axes ...int64) (*tensorVal, error) {
	return c.b().emit1(c.scope, &canon.Reduce{Fn: fn, Axes: axes, KeepDims: keep}, x)
}

// unsqueeze and squeeze emit the axis changes.
func unsqueeze(c *opCall, x *tensorVal, axes ...int64) (*tensorVal, error) {
	return c.b().emit1(c.scope, &canon.Unsqueeze{Axes: axes}, x)
}

func squeeze(c *opCall, x *tensorVal, axes ...int64) (*tensorVal, error) {
	return c.b().emit1(c.scope, &canon.Squeeze{Axes: axes}, x)
}

// transpose emits a permutation of x's axes.
func transpose(c *opCall, x *tensorVal, perm []int64) (*tensorVal, error) {
	identity := true
	for i, p := range perm {
		identity = identity && p == int64(i)
	}
	if identity {
		return x, nil
	}
	return c.b().emit1(c.scope, &canon.Transpose{Perm: perm}, x)
}

// reshape emits a Reshape to a static shape; to no shape (0-D), the
// one-element x drops its axes of size 1.
func reshape(c *opCall, x *tensorVal, shape ...int64) (*tensorVal, error) {
	if len(shape) == 0 {
		return c.b().emit1(c.scope, &canon.Squeeze{}, x)
	}
	return c.b().emit1(c.scope, &canon.Reshape{Shape: shape, AllowZero: true}, x)
}

// tensorList reads argument i as a non-empty list of tensors.
func tensorList(c *opCall, i int) ([]*tensorVal, error) {
	items, ok := listItems(c.bound[i])
	if !ok {
		return nil, c.errf("argument %s must be a list of Tensors, got %s", c.params[i], typeName(c.bound[i]))
	}
	if len(items) == 0 {
		return nil, c.errf("argument %s is an empty list", c.params[i])
	}
	ts := make([]*tensorVal, len(items))
	for k, it := range items {
		t, ok := it.(*tensorVal)
		if !ok {
			return nil, c.errf("element %d of %s is a %s, not a Tensor", k, c.params[i], typeName(it))
		}
		ts[k] = t
	}
	return ts, nil
}

// axisOf normalizes argument i as an axis of a rank-r tensor.
func axisOf(c *opCall, i int, r int) (int64, error) {
	d, err := c.int(i)
	if err != nil {
		return 0, err
	}
	return c.axis(d, r)
}

// floatNames are the float literals serialized code spells as names
// (torch.full_like(x, nan)); a variable of the same name shadows them.
var floatNames = map[string]value{"nan": math.NaN(), "inf": math.Inf(1)}
