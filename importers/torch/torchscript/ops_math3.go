package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// More elementwise functions and NaN-aware reductions: signbit, fmax,
// fmin, ldexp, xlog1py, angle of real numbers, nansum, nanmean and dist;
// and the refusals of functions no canonical op computes exactly.

func init() {
	entries := map[string]opEntry{
		"torch.signbit": entry(opUnaryExpansion(func(e *expansion, x *tensorVal) *tensorVal {
			if dt := e.dtype(x); dt.IsInt() || dt == canon.Bool {
				return e.cmp(canon.CmpLess, x, e.num(0, x))
			}
			return e.signBit(x)
		}), expansionKinds...),
		// angle of a real number: 0 for x >= 0, π below, NaN for NaN.
		"torch.angle": entry(opUnaryExpansion(func(e *expansion, x *tensorVal) *tensorVal {
			x = e.floatInput(x)
			r := e.where(e.cmp(canon.CmpLess, x, e.num(0, x)), e.pi(x), e.num(0, x))
			return e.where(e.isNaN(x), x, r)
		}), expansionKinds...),
		"torch.fmax":             entry(opBinaryOfDType(nanIgnoring(canon.VarMax)), expansionKinds...),
		"torch.fmin":             entry(opBinaryOfDType(nanIgnoring(canon.VarMin)), expansionKinds...),
		"torch.ldexp":            entry(opBinaryExpansion(ldexp), expansionKinds...),
		"torch.ldexp_":           entry(inPlace(opBinaryExpansion(ldexp)), expansionKinds...),
		"torch.special_xlog1py":  entry(opBinaryExpansion(xlog1py), expansionKinds...),
		"torch.nansum":           entry(opNanReduce(false), "IsNaN", "Where", "ReduceSum", "Not", "Cast", "Div"),
		"torch.nanmean":          entry(opNanReduce(true), "IsNaN", "Where", "ReduceSum", "Not", "Cast", "Div"),
		"torch.isclose":          entry(opIsClose, "Equal", "IsNaN", "IsInf", "And", "Or", "Not", "Add", "Sub", "Mul", "Abs", "LessOrEqual", "Cast"),
		"torch.isin":             entry(opIsIn, "Reshape", "Unsqueeze", "Equal", "Cast", "ReduceSum", "Greater", "Cast"),
		"torch.erfc":             entry(refuseOp("1 - erf(x) loses all relative precision where erfc is small (x > 4 in float32), and no canonical operator computes erfc")),
		"torch.special_ndtr":     entry(refuseOp("ndtr is computed from erfc, which no canonical operator computes to float precision in the lower tail")),
		"torch.special_log_ndtr": entry(refuseOp("log_ndtr is computed from erfc, which no canonical operator computes to float precision in the lower tail")),
		"torch.nextafter":        entry(refuseOp("nextafter steps to the adjacent float, which needs the bits of a float; no canonical operator reads them")),
		"torch.frexp":            entry(refuseOp("frexp splits a float into its mantissa and exponent bits, which no canonical operator reads")),
		"torch.gcd":              entry(refuseOp("gcd needs a loop (Euclid's algorithm) that no canonical operator expresses")),
		"torch.lcm":              entry(refuseOp("lcm needs gcd, a loop (Euclid's algorithm) that no canonical operator expresses")),
		"torch.inverse":          entry(refuseOp("matrix inverses need a factorization, which no canonical operator computes")),
		"torch.linalg_inv":       entry(refuseOp("matrix inverses need a factorization, which no canonical operator computes")),
		"torch.linalg_solve":     entry(refuseOp("solving linear systems needs a factorization, which no canonical operator computes")),
		"torch.pinverse":         entry(refuseOp("pseudo-inverses need singular values, which no canonical operator computes")),
		"torch.linalg_pinv":      entry(refuseOp("pseudo-inverses need singular values, which no canonical operator computes")),
		"torch.linalg_svd":       entry(refuseOp("singular value decompositions have no canonical operator")),
		"torch.svd":              entry(refuseOp("singular value decompositions have no canonical operator")),
		"torch.linalg_qr":        entry(refuseOp("QR decompositions have no canonical operator")),
		"torch.linalg_cholesky":  entry(refuseOp("Cholesky factorizations have no canonical operator")),
		"torch.cholesky":         entry(refuseOp("Cholesky factorizations have no canonical operator")),
		"torch.linalg_eigh":      entry(refuseOp("eigendecompositions have no canonical operator")),
		"torch.linalg_eig":       entry(refuseOp("eigendecompositions have no canonical operator")),
	}
	optable.Add(&opTable, entries)
}

// opBinaryOfDType is opBinaryExpansion without the float promotion (the
// function is defined on integers too).
func opBinaryOfDType(f func(e *expansion, a, b *tensorVal) *tensorVal) opHandler {
	return func(c *opCall) (value, error) {
		a, b, err := tensorPair(c)
		if err != nil {
			return nil, err
		}
		e := newExpansion(c)
		return e.result(f(e, a, b))
	}
}

// nanIgnoring is torch.fmax/fmin: the other operand where one is NaN.
func nanIgnoring(fn canon.VariadicFn) func(e *expansion, a, b *tensorVal) *tensorVal {
	return func(e *expansion, a, b *tensorVal) *tensorVal {
		m := e.op(&canon.Variadic{Fn: fn}, a, b)
		if !e.dtype(a).IsFloat() {
			return m
		}
		return e.where(e.isNaN(a), b, e.where(e.isNaN(b), a, m))
	}
}

// ldexp is x·2^e, as torch computes it.
func ldexp(e *expansion, x, p *tensorVal) *tensorVal {
	return e.mul(x, e.op(&canon.Pow{}, e.num(2, p), p))
}

// xlog1py: NaN where y is NaN, 0 where x is 0, else x·log1p(y).
func xlog1py(e *expansion, x, y *tensorVal) *tensorVal {
	r := e.where(e.cmp(canon.CmpEqual, x, e.num(0, x)), e.num(0, x), e.mul(x, e.log1p(y)))
	return e.where(e.isNaN(y), y, r)
}

// opNanReduce: nansum is the sum with NaNs as 0; nanmean divides it by
// the count of the others.
func opNanReduce(mean bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "dim=None", "keepdim=False", "dtype=None")
		if err != nil {
			return nil, err
		}
		if x, err = reduceDType(c, x, 3); err != nil {
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
		e := newExpansion(c)
		if !e.dtype(x).IsFloat() {
			if mean {
				return nil, c.errf("nanmean takes floating-point tensors")
			}
			x, err = int64Input(c, x)
			if err != nil {
				return nil, err
			}
			return e.result(e.reduce(canon.ReduceSum, x, axes, keep))
		}
		nan := e.isNaN(x)
		s := e.reduce(canon.ReduceSum, e.where(nan, e.num(0, x), x), axes, keep)
		if !mean {
			return e.result(s)
		}
		n := e.reduce(canon.ReduceSum, e.cast(e.not(nan), e.dtype(x)), axes, keep)
		return e.result(e.div(s, n))
	}
}

// opIsClose: torch.isclose(a, b, rtol, atol, equal_nan) as torch computes
// it: equal, or (if equal_nan) both NaN, or |a - b| finite and at most
// atol + |rtol·b|.
func opIsClose(c *opCall) (value, error) {
	if err := c.bind("input", "other", "rtol=1e-05", "atol=1e-08", "equal_nan=False"); err != nil {
		return nil, err
	}
	a, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	b, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if a, b, err = promoteTensors(c, a, b); err != nil {
		return nil, err
	}
	rtol, err := c.float(2)
	if err != nil {
		return nil, err
	}
	atol, err := c.float(3)
	if err != nil {
		return nil, err
	}
	equalNaN, err := c.bool(4)
	if err != nil {
		return nil, err
	}
	e := newExpansion(c)
	close := e.cmp(canon.CmpEqual, a, b)
	if equalNaN && e.dtype(a).IsFloat() {
		close = e.or(close, e.and(e.isNaN(a), e.isNaN(b)))
	}
	if rtol == 0 && atol == 0 {
		return e.result(close)
	}
	a, b = e.floatInput(a), e.floatInput(b)
	allowed := e.add(e.num(atol, b), e.fn(canon.MathAbs, e.mul(e.num(rtol, b), b)))
	actual := e.fn(canon.MathAbs, e.sub(a, b))
	finite := e.not(e.or(e.isNaN(actual), e.isInf(actual, true, true)))
	return e.result(e.or(close, e.and(finite, e.cmp(canon.CmpLessOrEqual, actual, allowed))))
}

// opIsIn: torch.isin(elements, test_elements, assume_unique, invert)
// compares every element with every test element (flattened) and asks
// whether any is equal.
func opIsIn(c *opCall) (value, error) {
	if err := c.bind("elements", "test_elements", "assume_unique=False", "invert=False"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	invert, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	e := newExpansion(c)
	var test *tensorVal
	if t, ok := c.bound[1].(*tensorVal); ok {
		test = t
	} else if s, ok := scalarOf(c.bound[1]); ok {
		test = e.num(s.f, x)
	} else {
		return nil, c.errf("test_elements must be a Tensor or a number, got %s", typeName(c.bound[1]))
	}
	if x, test, err = promoteTensors(c, x, test); err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "elements")
	if err != nil {
		return nil, err
	}
	flat := e.op(&canon.Reshape{Shape: []int64{-1}}, test)
	eq := e.cmp(canon.CmpEqual, e.op(&canon.Unsqueeze{Axes: []int64{int64(r)}}, x), flat)
	hits := e.reduce(canon.ReduceSum, e.cast(eq, canon.Int64), []int64{int64(r)}, false)
	zero := e.numOf(0, canon.Int64)
	if invert {
		return e.result(e.cmp(canon.CmpEqual, hits, zero))
	}
	return e.result(e.cmp(canon.CmpGreater, hits, zero))
}
