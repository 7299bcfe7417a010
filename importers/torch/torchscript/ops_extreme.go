package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// torch.max and torch.min name three operators, told apart by their
// arguments: max(x) reduces every axis, max(x, dim, keepdim) gives
// (values, indices) along dim (the first index of the extreme, as
// ArgMax), and max(x, other) is elementwise. torch.rsqrt is 1/sqrt(x),
// in float32 for integer inputs.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.max":    entry(opMaxMin(false), "ReduceMax", "ArgMax", "Max", "Cast"),
		"torch.min":    entry(opMaxMin(true), "ReduceMin", "ArgMin", "Min", "Cast"),
		"torch.rsqrt":  entry(opRsqrt, "Sqrt", "Reciprocal", "Cast"),
		"torch.rsqrt_": entry(inPlace(opRsqrt), "Sqrt", "Reciprocal", "Cast"),
	})
}

func opMaxMin(isMin bool) opHandler {
	reduce, variadic := canon.ReduceMax, canon.VarMax
	if isMin {
		reduce, variadic = canon.ReduceMin, canon.VarMin
	}
	return func(c *opCall) (value, error) {
		other, hasOther := c.kwargs["other"]
		if len(c.args) >= 2 {
			other, hasOther = c.args[1], true
		}
		if _, ok := other.(*tensorVal); hasOther && ok {
			return opExtreme(c, variadic)
		}
		if len(c.args) < 2 && c.kwargs["dim"] == nil {
			x, err := c.bindInput("input")
			if err != nil {
				return nil, err
			}
			return c.b().emit1(c.scope, &canon.Reduce{Fn: reduce}, x)
		}
		x, err := c.bindInput("input", "dim", "keepdim=False")
		if err != nil {
			return nil, err
		}
		d, err := indexingDim(c, 1, x)
		if err != nil {
			return nil, err
		}
		keep, err := c.bool(2)
		if err != nil {
			return nil, err
		}
		vals, err := c.b().emit1(c.scope, &canon.Reduce{Fn: reduce, Axes: []int64{d}, KeepDims: keep}, x)
		if err != nil {
			return nil, err
		}
		idx, err := c.b().emit1(c.scope, &canon.ArgReduce{Min: isMin, Axis: d, KeepDims: keep}, x)
		if err != nil {
			return nil, err
		}
		return &tupleVal{items: []value{vals, idx}}, nil
	}
}

func opRsqrt(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	if x, err = floatInput(c, x); err != nil {
		return nil, err
	}
	s, err := c.b().emit1(c.scope, &canon.Math{Fn: canon.MathSqrt}, x)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Math{Fn: canon.MathReciprocal}, s)
}

// floatInput casts integer and bool tensors to float32, torch's default
// dtype, as its floating-point functions do.
func floatInput(c *opCall, x *tensorVal) (*tensorVal, error) {
	dt := c.b().info(x).DType
	if dt == canon.Undefined || dt.IsFloat() {
		return x, nil
	}
	return c.b().emit1(c.scope, &canon.Cast{To: canon.Float32}, x)
}
