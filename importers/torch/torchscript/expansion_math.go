package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// expansion emits the canonical nodes of one operator's expansion. It keeps the
// first error, so that an expansion reads as its formula and is checked
// once at the end (result).
type expansion struct {
	c   *opCall
	err error
}

func newExpansion(c *opCall) *expansion { return &expansion{c: c} }

func (e *expansion) op(op canon.Op, ins ...*tensorVal) *tensorVal {
	if e.err != nil {
		return nil
	}
	for _, in := range ins {
		if in == nil {
			return nil // an earlier step failed and set e.err
		}
	}
	out, err := e.c.b().emit1(e.c.scope, op, ins...)
	e.err = err
	return out
}

// result returns v as the operator's value, or the first error.
func (e *expansion) result(v value) (value, error) {
	if e.err != nil {
		return nil, e.err
	}
	return v, nil
}

func (e *expansion) add(a, b *tensorVal) *tensorVal { return e.op(&canon.Binary{Fn: canon.Add}, a, b) }
func (e *expansion) sub(a, b *tensorVal) *tensorVal { return e.op(&canon.Binary{Fn: canon.Sub}, a, b) }
func (e *expansion) mul(a, b *tensorVal) *tensorVal { return e.op(&canon.Binary{Fn: canon.Mul}, a, b) }
func (e *expansion) div(a, b *tensorVal) *tensorVal { return e.op(&canon.Binary{Fn: canon.Div}, a, b) }
func (e *expansion) fn(f canon.MathFn, x *tensorVal) *tensorVal {
	return e.op(&canon.Math{Fn: f}, x)
}
func (e *expansion) cmp(f canon.CompareFn, a, b *tensorVal) *tensorVal {
	return e.op(&canon.Compare{Fn: f}, a, b)
}
func (e *expansion) and(a, b *tensorVal) *tensorVal {
	return e.op(&canon.Logic{Fn: canon.LogicAnd}, a, b)
}
func (e *expansion) or(a, b *tensorVal) *tensorVal {
	return e.op(&canon.Logic{Fn: canon.LogicOr}, a, b)
}
func (e *expansion) not(a *tensorVal) *tensorVal { return e.op(&canon.Not{}, a) }
func (e *expansion) where(cond, a, b *tensorVal) *tensorVal {
	return e.op(&canon.Where{}, cond, a, b)
}
func (e *expansion) max(a, b *tensorVal) *tensorVal {
	return e.op(&canon.Variadic{Fn: canon.VarMax}, a, b)
}
func (e *expansion) min(a, b *tensorVal) *tensorVal {
	return e.op(&canon.Variadic{Fn: canon.VarMin}, a, b)
}
func (e *expansion) isNaN(a *tensorVal) *tensorVal { return e.op(&canon.IsNaN{}, a) }
func (e *expansion) isInf(a *tensorVal, pos, neg bool) *tensorVal {
	return e.op(&canon.IsInf{DetectPositive: pos, DetectNegative: neg}, a)
}

// cast converts x to dt unless it has that dtype.
func (e *expansion) cast(x *tensorVal, dt canon.DType) *tensorVal {
	if e.err != nil || x == nil {
		return nil
	}
	if have := e.c.b().info(x).DType; have == dt || have == canon.Undefined {
		return x
	}
	return e.op(&canon.Cast{To: dt}, x)
}

// num is the number v as a rank-0 constant of like's dtype.
func (e *expansion) num(v float64, like *tensorVal) *tensorVal {
	if e.err != nil || like == nil {
		return nil
	}
	return e.numOf(v, e.c.b().info(like).DType)
}

func (e *expansion) numOf(v float64, dt canon.DType) *tensorVal {
	if e.err != nil {
		return nil
	}
	if dt == canon.Undefined {
		dt = canon.Float32
	}
	k, err := scalarAs(v, dt)
	if err != nil {
		e.err = e.c.errf("%v", err)
		return nil
	}
	return &tensorVal{konst: k}
}

func (e *expansion) dtype(x *tensorVal) canon.DType {
	if x == nil {
		return canon.Undefined
	}
	return e.c.b().info(x).DType
}

// signBit is true where x's sign bit is set: negative numbers and -0
// (1/-0 is -inf), but not NaN, whose sign no comparison sees.
func (e *expansion) signBit(x *tensorVal) *tensorVal {
	zero := e.num(0, x)
	return e.or(e.cmp(canon.CmpLess, x, zero), e.cmp(canon.CmpLess, e.div(e.num(1, x), x), zero))
}

// log1p is log(1 + x) to within a few ulps for small x (Goldberg's
// correction: log(u)·x/(u-1) with u = 1 + x rounded).
func (e *expansion) log1p(x *tensorVal) *tensorVal {
	one := e.num(1, x)
	u := e.add(one, x)
	r := e.mul(e.fn(canon.MathLog, u), e.div(x, e.sub(u, one)))
	r = e.where(e.cmp(canon.CmpEqual, u, one), x, r)
	return e.where(e.isInf(u, true, false), u, r)
}

// expm1 is exp(x) - 1 to within a few ulps near 0 (Kahan's correction:
// (u-1)·x/log(u) with u = exp(x) rounded).
func (e *expansion) expm1(x *tensorVal) *tensorVal {
	one := e.num(1, x)
	u := e.fn(canon.MathExp, x)
	um1 := e.sub(u, one)
	r := e.mul(um1, e.div(x, e.fn(canon.MathLog, u)))
	r = e.where(e.cmp(canon.CmpEqual, u, one), x, r)
	r = e.where(e.cmp(canon.CmpEqual, um1, e.num(-1, x)), um1, r)
	return e.where(e.isInf(u, true, false), u, r)
}

// trunc rounds toward zero: ceil below zero, floor elsewhere (NaN stays).
func (e *expansion) trunc(x *tensorVal) *tensorVal {
	return e.where(e.cmp(canon.CmpLess, x, e.num(0, x)), e.fn(canon.MathCeil, x), e.fn(canon.MathFloor, x))
}

// floatInput casts integer and bool tensors to float32, as torch's float
// functions promote them.
func (e *expansion) floatInput(x *tensorVal) *tensorVal {
	if dt := e.dtype(x); dt != canon.Undefined && !dt.IsFloat() {
		return e.cast(x, canon.Float32)
	}
	return x
}

// reduce applies a reduction over axes (nil: all).
func (e *expansion) reduce(fn canon.ReduceFn, x *tensorVal, axes []int64, keep bool) *tensorVal {
	return e.op(&canon.Reduce{Fn: fn, Axes: axes, KeepDims: keep}, x)
}

// pi is π in x's dtype.
func (e *expansion) pi(x *tensorVal) *tensorVal { return e.num(math.Pi, x) }
