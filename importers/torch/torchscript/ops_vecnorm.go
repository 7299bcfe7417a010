package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Vector and matrix norms of any order: torch.norm, linalg_vector_norm,
// linalg_norm, linalg_matrix_norm and frobenius_norm. Orders 1 and 2 are
// ReduceL1/ReduceL2; ±inf the largest/smallest magnitude; 0 the count of
// nonzero entries; any other p is (Σ|x|^p)^(1/p). Matrix norms that need
// singular values (2, -2, nuclear) are refused.

var normKinds = []string{"ReduceL2", "ReduceL1", "ReduceMax", "ReduceMin", "ReduceSum", "Abs", "Pow", "Equal", "Not",
	"Cast", "Squeeze"}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.linalg_norm":        entry(opLinalgNorm(false), normKinds...),
		"torch.linalg_matrix_norm": entry(opLinalgNorm(true), normKinds...),
		"torch.frobenius_norm":     entry(opFrobeniusNorm, normKinds...),
		"torch.nuclear_norm":       entry(refuseOp("the nuclear norm is a sum of singular values, which no canonical operator computes")),
	})
}

// normOrder reads an order argument: a number, or the strings "fro"
// (Frobenius, the 2-norm of the entries) and "nuc" (refused).
func normOrder(c *opCall, i int, dflt float64) (ord float64, fro bool, err error) {
	if c.isNone(i) {
		return dflt, false, nil
	}
	if s, ok := c.bound[i].(string); ok {
		switch s {
		case "fro":
			return 2, true, nil
		case "nuc":
			return 0, false, c.errf("the nuclear norm is a sum of singular values, which no canonical operator computes")
		}
		return 0, false, c.errf("norm order %q is not one of torch's (fro, nuc or a number)", s)
	}
	ord, err = c.float(i)
	return ord, false, err
}

// vectorNorm is the ord-norm of x's entries over axes (nil: all).
func vectorNorm(c *opCall, x *tensorVal, ord float64, axes []int64, keep bool) (value, error) {
	e := newExpansion(c)
	if dt := e.dtype(x); dt != canon.Undefined && !dt.IsFloat() {
		return nil, c.errf("norms take floating-point tensors; the input is %s", dt)
	}
	switch {
	case ord == 2:
		return e.result(e.reduce(canon.ReduceL2, x, axes, keep))
	case ord == 1:
		return e.result(e.reduce(canon.ReduceL1, x, axes, keep))
	case math.IsInf(ord, 1):
		return e.result(e.reduce(canon.ReduceMax, e.fn(canon.MathAbs, x), axes, keep))
	case math.IsInf(ord, -1):
		return e.result(e.reduce(canon.ReduceMin, e.fn(canon.MathAbs, x), axes, keep))
	case ord == 0:
		nz := e.cast(e.not(e.cmp(canon.CmpEqual, x, e.num(0, x))), e.dtype(x))
		return e.result(e.reduce(canon.ReduceSum, nz, axes, keep))
	case math.IsNaN(ord):
		return nil, c.errf("norm order NaN is not defined")
	}
	s := e.reduce(canon.ReduceSum, e.op(&canon.Pow{}, e.fn(canon.MathAbs, x), e.num(ord, x)), axes, keep)
	return e.result(e.op(&canon.Pow{}, s, e.num(1/ord, x)))
}

// matrixNorm is the ord-norm of the matrices over axes (rows, cols):
// Frobenius, the largest or smallest column (ord ±1) or row (ord ±inf)
// sum of magnitudes.
func matrixNorm(c *opCall, x *tensorVal, ord float64, fro bool, axes []int64, keep bool) (value, error) {
	if fro {
		return vectorNorm(c, x, 2, axes, keep)
	}
	e := newExpansion(c)
	var inner, outer int64
	var pick canon.ReduceFn
	switch {
	case ord == 1 || ord == -1:
		inner, outer = axes[0], axes[1]
	case math.IsInf(ord, 0):
		inner, outer = axes[1], axes[0]
	default:
		return nil, c.errf("matrix norm of order %v needs singular values, which no canonical operator computes", ord)
	}
	pick = canon.ReduceMax
	if ord < 0 {
		pick = canon.ReduceMin
	}
	sums := e.reduce(canon.ReduceSum, e.fn(canon.MathAbs, x), []int64{inner}, true)
	r := e.reduce(pick, sums, []int64{outer}, true)
	if !keep {
		r = e.op(&canon.Squeeze{Axes: []int64{min(inner, outer), max(inner, outer)}}, r)
	}
	return e.result(r)
}

// opLinalgNorm: linalg_norm(x, ord=None, dim=None, keepdim=False, dtype)
// is a vector norm for one dim (or a 1-D input), a matrix norm for two;
// without ord, the 2-norm of the entries. linalg_matrix_norm defaults to
// Frobenius over the last two axes.
func opLinalgNorm(matrix bool) opHandler {
	return func(c *opCall) (value, error) {
		schema := []string{"input", "ord=None", "dim=None", "keepdim=False", "dtype=None"}
		if matrix {
			schema[2] = "dim=[-2;-1]"
		}
		x, err := c.bindInput(schema...)
		if err != nil {
			return nil, err
		}
		if x, err = reduceDType(c, x, 4); err != nil {
			return nil, err
		}
		keep, err := c.bool(3)
		if err != nil {
			return nil, err
		}
		axes, err := reduceAxes(c, 2, x)
		if err != nil {
			return nil, err
		}
		if c.isNone(1) && !matrix {
			return vectorNorm(c, x, 2, axes, keep)
		}
		ord, fro, err := normOrder(c, 1, 2)
		if err != nil {
			return nil, err
		}
		if matrix && c.isNone(1) {
			fro = true
		}
		if axes == nil {
			r, err := c.rankOf(x, "the input")
			if err != nil {
				return nil, err
			}
			switch r {
			case 1:
				axes = []int64{0}
			case 2:
				axes = []int64{0, 1}
			default:
				return nil, c.errf("an order without dim needs a 1-D or 2-D input; the input has rank %d", r)
			}
		}
		switch len(axes) {
		case 1:
			if fro {
				return nil, c.errf("the Frobenius norm needs two dims")
			}
			return vectorNorm(c, x, ord, axes, keep)
		case 2:
			return matrixNorm(c, x, ord, fro, axes, keep)
		}
		return nil, c.errf("dim must name one or two axes, got %d", len(axes))
	}
}

// opFrobeniusNorm: frobenius_norm(x, dim=None, keepdim=False).
func opFrobeniusNorm(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=None", "keepdim=False")
	if err != nil {
		return nil, err
	}
	axes, err := reduceAxes(c, 1, x)
	if err != nil {
		return nil, err
	}
	keep, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	return vectorNorm(c, x, 2, axes, keep)
}
