package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Values whose sizes only a run tells: topk with a run-time k, numel of
// a tensor of run-time shape, tensor literals of run-time ints.

// topKRunTime is torch.topk with a k known only at run time (scripted
// code's min(n, x.size(0))): the stable sort torch's topk orders by (NaN
// largest), cut to its first k entries by a Slice whose end is k.
func topKRunTime(c *opCall, x *tensorVal, k *dynInt) (value, error) {
	d, err := indexingDim(c, 2, x)
	if err != nil {
		return nil, err
	}
	largest, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	vi := c.b().info(x)
	if !vi.DType.IsFloat() || !vi.RankKnown || len(vi.Shape) == 0 {
		return nil, c.errf("a k known only at run time is supported for floating-point tensors of known rank (at least 1)")
	}
	n := int64(-1)
	if vi.Shape[d].Known() {
		n = vi.Shape[d].Size
	}
	vals, idx, err := stableSort(c, x, d, n, largest)
	if err != nil {
		return nil, err
	}
	first := func(t *tensorVal) ([]*tensorVal, error) {
		return c.b().emit(c.scope, &canon.Slice{Starts: []int64{0}, Axes: []int64{d}, Steps: []int64{1}}, []*tensorVal{t, nil, k.t}, 1)
	}
	if vals, err = first1(first, vals); err != nil {
		return nil, err
	}
	if idx, err = first1(first, idx); err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{vals, idx}}, nil
}

func first1(f func(*tensorVal) ([]*tensorVal, error), t *tensorVal) (*tensorVal, error) {
	out, err := f(t)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// runTimeNumel is x.numel() of a tensor whose shape only a run tells: the
// product of its shape, a run-time int.
func runTimeNumel(c *opCall, x *tensorVal) (value, error) {
	shape, err := c.b().emit1(c.scope, &canon.ShapeOf{End: math.MaxInt64}, x)
	if err != nil {
		return nil, err
	}
	n, err := c.b().emit1(c.scope, &canon.Reduce{Fn: canon.ReduceProd, Axes: []int64{0}, KeepDims: true}, shape)
	if err != nil {
		return nil, err
	}
	return &dynInt{t: n, sym: n.name}, nil
}

// runTimeTensorLiteral is torch.tensor of (nested) lists holding ints
// known only at run time: their values concatenated, shaped and cast.
func runTimeTensorLiteral(c *opCall, leaves []value, shape []int64, dt canon.DType) (value, error) {
	parts := make([]*tensorVal, len(leaves))
	for i, l := range leaves {
		t, ok := intTensor(l)
		if !ok {
			return nil, c.errf("an element is a %s; with ints known only at run time, only ints are supported", typeName(l))
		}
		parts[i] = t
	}
	return stackRunTimeLiteral(c, parts, shape, canon.Int64, dt)
}

// stackRunTimeLiteral concatenates a literal's scalar values (each of
// dtype have), shapes them and casts them to want once.
func stackRunTimeLiteral(c *opCall, parts []*tensorVal, shape []int64, have, want canon.DType) (value, error) {
	all := parts[0]
	var err error
	if len(parts) > 1 {
		if all, err = c.b().emit1(c.scope, &canon.Concat{Axis: 0}, parts...); err != nil {
			return nil, err
		}
	}
	if all, err = c.b().emit1(c.scope, &canon.Reshape{Shape: shape}, all); err != nil {
		return nil, err
	}
	if want == have {
		return all, nil
	}
	return c.b().emit1(c.scope, &canon.Cast{To: want}, all)
}
