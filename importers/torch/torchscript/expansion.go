package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// expander writes an operator's exact expansion into canonical nodes, in
// the float dtype the operator computes in. The first error stops it:
// later steps return nil and err keeps that error, so a formula reads as
// one sequence of calls with one check at the end.
type expander struct {
	c   *opCall
	dt  canon.DType
	err error
}

func newExpander(c *opCall, like *tensorVal) *expander {
	dt := c.b().info(like).DType
	if dt == canon.Undefined {
		dt = canon.Float32
	}
	return &expander{c: c, dt: dt}
}

func (e *expander) emit(op canon.Op, ins ...*tensorVal) *tensorVal {
	if e.err != nil {
		return nil
	}
	for _, in := range ins {
		if in == nil {
			e.err = e.c.errf("internal error: an expansion step of %s lost its operand", op.Kind())
			return nil
		}
	}
	t, err := e.c.b().emit1(e.c.scope, op, ins...)
	if err != nil {
		e.err = e.c.errf("%v", err)
	}
	return t
}

// num is a scalar constant of the expansion's dtype.
func (e *expander) num(v float64) *tensorVal {
	if e.err != nil {
		return nil
	}
	t, err := scalarAs(v, e.dt)
	if err != nil {
		e.err = e.c.errf("%v", err)
		return nil
	}
	return &tensorVal{konst: t}
}

// ints is a constant int64 tensor of the given shape.
func (e *expander) ints(shape []int64, v []int64) *tensorVal {
	return &tensorVal{konst: canon.NewInt64Tensor("", shape, v)}
}

func (e *expander) add(a, b *tensorVal) *tensorVal { return e.emit(&canon.Binary{Fn: canon.Add}, a, b) }
func (e *expander) sub(a, b *tensorVal) *tensorVal { return e.emit(&canon.Binary{Fn: canon.Sub}, a, b) }
func (e *expander) mul(a, b *tensorVal) *tensorVal { return e.emit(&canon.Binary{Fn: canon.Mul}, a, b) }
func (e *expander) div(a, b *tensorVal) *tensorVal { return e.emit(&canon.Binary{Fn: canon.Div}, a, b) }

func (e *expander) math(fn canon.MathFn, x *tensorVal) *tensorVal {
	return e.emit(&canon.Math{Fn: fn}, x)
}
func (e *expander) neg(x *tensorVal) *tensorVal  { return e.math(canon.MathNeg, x) }
func (e *expander) abs(x *tensorVal) *tensorVal  { return e.math(canon.MathAbs, x) }
func (e *expander) exp(x *tensorVal) *tensorVal  { return e.math(canon.MathExp, x) }
func (e *expander) log(x *tensorVal) *tensorVal  { return e.math(canon.MathLog, x) }
func (e *expander) sqrt(x *tensorVal) *tensorVal { return e.math(canon.MathSqrt, x) }

func (e *expander) unary(fn canon.UnaryFn, x *tensorVal) *tensorVal {
	return e.emit(&canon.Unary{Fn: fn}, x)
}

// maximum and minimum propagate NaN, as torch's clamp_min, max and min do.
func (e *expander) maximum(a, b *tensorVal) *tensorVal {
	return e.emit(&canon.Variadic{Fn: canon.VarMax}, a, b)
}
func (e *expander) minimum(a, b *tensorVal) *tensorVal {
	return e.emit(&canon.Variadic{Fn: canon.VarMin}, a, b)
}

// clampMin is torch's clamp_min(x, v).
func (e *expander) clampMin(x *tensorVal, v float64) *tensorVal { return e.maximum(x, e.num(v)) }

func (e *expander) pow(x, y *tensorVal) *tensorVal { return e.emit(&canon.Pow{}, x, y) }

func (e *expander) cmp(fn canon.CompareFn, a, b *tensorVal) *tensorVal {
	return e.emit(&canon.Compare{Fn: fn}, a, b)
}
func (e *expander) not(x *tensorVal) *tensorVal { return e.emit(&canon.Not{}, x) }

func (e *expander) where(cond, a, b *tensorVal) *tensorVal { return e.emit(&canon.Where{}, cond, a, b) }

// cast converts x to dt, without a node when it has that dtype.
func (e *expander) cast(x *tensorVal, dt canon.DType) *tensorVal {
	if e.err != nil {
		return nil
	}
	if e.c.b().info(x).DType == dt {
		return x
	}
	return e.emit(&canon.Cast{To: dt}, x)
}

func (e *expander) reduce(fn canon.ReduceFn, x *tensorVal, keep bool, axes ...int64) *tensorVal {
	return e.emit(&canon.Reduce{Fn: fn, Axes: axes, KeepDims: keep}, x)
}

// all reduces every axis of x to a rank-0 result.
func (e *expander) all(fn canon.ReduceFn, x *tensorVal) *tensorVal {
	r := e.rank(x)
	if e.err != nil {
		return nil
	}
	if r == 0 {
		return x
	}
	axes := make([]int64, r)
	for i := range axes {
		axes[i] = int64(i)
	}
	return e.reduce(fn, x, false, axes...)
}

func (e *expander) unsqueeze(x *tensorVal, axes ...int64) *tensorVal {
	return e.emit(&canon.Unsqueeze{Axes: axes}, x)
}
func (e *expander) squeeze(x *tensorVal, axes ...int64) *tensorVal {
	return e.emit(&canon.Squeeze{Axes: axes}, x)
}

func (e *expander) rank(x *tensorVal) int {
	if e.err != nil {
		return 0
	}
	r, err := e.c.rankOf(x, "the operand")
	e.err = err
	return r
}

func (e *expander) shape(x *tensorVal, what string) []int64 {
	if e.err != nil {
		return nil
	}
	s, err := e.c.shapeOf(x, what)
	e.err = err
	return s
}

// log1p is log(1+u) to within a rounding of u: where 1+u rounds to 1 it
// is u, elsewhere log(w)·u/(w-1) with w = 1+u, which cancels the rounding
// of w (Goldberg's formula), and +inf for u = +inf. torch computes log1p
// directly.
func (e *expander) log1p(u *tensorVal) *tensorVal {
	w := e.add(u, e.num(1))
	wm1 := e.sub(w, e.num(1))
	exact := e.cmp(canon.CmpEqual, wm1, e.num(0))
	infinite := e.cmp(canon.CmpEqual, u, e.num(math.Inf(1)))
	safe := e.where(exact, e.num(1), e.where(infinite, e.num(1), wm1))
	scaled := e.where(infinite, u, e.div(e.mul(e.log(w), u), safe))
	return e.where(exact, u, scaled)
}

// reduction applies a torch loss reduction (0 none, 1 mean, 2 sum, the
// at::Reduction enum) to an elementwise loss.
func (e *expander) reduction(loss *tensorVal, mode int64) *tensorVal {
	switch mode {
	case 0:
		return loss
	case 1:
		return e.all(canon.ReduceMean, loss)
	case 2:
		return e.all(canon.ReduceSum, loss)
	}
	if e.err == nil {
		e.err = e.c.errf("reduction %d is not one of torch's (0 none, 1 mean, 2 sum)", mode)
	}
	return nil
}

// pnorm is torch's vector norm of order p (keepdim as given):
// p 0 counts nonzero entries, p ±inf takes the largest/smallest |x|,
// p 1 and 2 are ReduceL1/L2, other p (sum |x|^p)^(1/p), over axes.
func (e *expander) pnorm(d *tensorVal, p float64, keep bool, axes ...int64) *tensorVal {
	switch {
	case p == 0:
		nz := e.cast(e.not(e.cmp(canon.CmpEqual, d, e.num(0))), e.dt)
		return e.reduce(canon.ReduceSum, nz, keep, axes...)
	case math.IsInf(p, 1):
		return e.reduce(canon.ReduceMax, e.abs(d), keep, axes...)
	case math.IsInf(p, -1):
		return e.reduce(canon.ReduceMin, e.abs(d), keep, axes...)
	case p == 1:
		return e.reduce(canon.ReduceL1, d, keep, axes...)
	case p == 2:
		return e.reduce(canon.ReduceL2, d, keep, axes...)
	}
	s := e.reduce(canon.ReduceSum, e.pow(e.abs(d), e.num(p)), keep, axes...)
	return e.pow(s, e.num(1/p))
}

// intScalar is a rank-0 int64 constant.
func (e *expander) intScalar(v int64) *tensorVal { return e.ints([]int64{}, []int64{v}) }
