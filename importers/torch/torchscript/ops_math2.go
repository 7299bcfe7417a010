package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The elementwise functions without a canonical op of their own, each
// written as its exact expansion into canonical ops, following the formula
// PyTorch's CPU kernel evaluates (so the edge values agree: zeros of either
// sign, infinities, NaN). Integer and bool inputs of float functions are
// promoted to float32, as torch does.

// expansionKinds are the kinds the expansions here may emit.
var expansionKinds = []string{"Add", "Sub", "Mul", "Div", "Pow", "Where", "Equal", "Less", "Greater", "Or", "And", "Not",
	"IsNaN", "IsInf", "Cast", "Max", "Min", "Abs", "Neg", "Sign", "Exp", "Log", "Sqrt", "Floor", "Ceil", "Sin", "Atan"}

// unaryExpansions are torch functions of one tensor.
var unaryExpansions = map[string]func(e *expansion, x *tensorVal) *tensorVal{
	"square": func(e *expansion, x *tensorVal) *tensorVal {
		if e.dtype(x) == canon.Bool {
			x = e.cast(x, canon.Int64)
		}
		return e.mul(x, x)
	},
	"trunc": func(e *expansion, x *tensorVal) *tensorVal {
		if dt := e.dtype(x); dt.IsInt() || dt == canon.Bool {
			return x
		}
		return e.trunc(x)
	},
	"frac":  func(e *expansion, x *tensorVal) *tensorVal { return e.sub(x, e.trunc(x)) },
	"log10": func(e *expansion, x *tensorVal) *tensorVal { return logBase(e, x, math.Ln10) },
	"log2":  func(e *expansion, x *tensorVal) *tensorVal { return logBase(e, x, math.Ln2) },
	"log1p": func(e *expansion, x *tensorVal) *tensorVal { return e.log1p(e.floatInput(x)) },
	"expm1": func(e *expansion, x *tensorVal) *tensorVal { return e.expm1(e.floatInput(x)) },
	"exp2": func(e *expansion, x *tensorVal) *tensorVal {
		x = e.floatInput(x)
		return e.op(&canon.Pow{}, e.num(2, x), x)
	},
	// sinc(0) is 1; elsewhere sin(πx)/(πx), with πx rounded once.
	"sinc": func(e *expansion, x *tensorVal) *tensorVal {
		x = e.floatInput(x)
		px := e.mul(e.pi(x), x)
		return e.where(e.cmp(canon.CmpEqual, x, e.num(0, x)), e.num(1, x), e.div(e.fn(canon.MathSin, px), px))
	},
	// torch multiplies by the constant rounded to the tensor's dtype.
	"deg2rad": func(e *expansion, x *tensorVal) *tensorVal {
		x = e.floatInput(x)
		return e.mul(x, e.num(math.Pi/180, x))
	},
	"rad2deg": func(e *expansion, x *tensorVal) *tensorVal {
		x = e.floatInput(x)
		return e.mul(x, e.num(180/math.Pi, x))
	},
	"isfinite": func(e *expansion, x *tensorVal) *tensorVal {
		if dt := e.dtype(x); !dt.IsFloat() && dt != canon.Undefined {
			return e.cmp(canon.CmpEqual, x, x) // integers are finite
		}
		return e.not(e.or(e.isNaN(x), e.isInf(x, true, true)))
	},
	// torch's sign is (0 < x) - (x < 0): 0 at NaN, where canon's Sign
	// (ONNX's) gives NaN.
	"sign": torchSign,
	"sgn":  torchSign,
}

// binaryExpansions are torch functions of two operands (tensors or
// numbers), promoted to one dtype first.
var binaryExpansions = map[string]func(e *expansion, a, b *tensorVal) *tensorVal{
	"atan2": atan2,
	// torch: a when both are the same infinity, else
	// max + log1p(exp(-|a-b|)).
	"logaddexp": func(e *expansion, a, b *tensorVal) *tensorVal {
		return logAddExp(e, a, b, func(d *tensorVal) *tensorVal { return e.log1p(e.fn(canon.MathExp, d)) })
	},
	"logaddexp2": func(e *expansion, a, b *tensorVal) *tensorVal {
		return logAddExp(e, a, b, func(d *tensorVal) *tensorVal {
			return e.mul(e.log1p(e.op(&canon.Pow{}, e.num(2, d), d)), e.num(1/math.Ln2, d))
		})
	},
	"hypot":    hypot,
	"copysign": copySign,
	// torch: NaN where y is NaN, 0 where x is 0, else x·log(y).
	"xlogy": func(e *expansion, x, y *tensorVal) *tensorVal {
		r := e.where(e.cmp(canon.CmpEqual, x, e.num(0, x)), e.num(0, x), e.mul(x, e.fn(canon.MathLog, y)))
		return e.where(e.isNaN(y), y, r)
	},
}

func init() {
	entries := map[string]opEntry{
		"torch.positive":       entry(opPositive),
		"torch.logit":          entry(opLogit, expansionKinds...),
		"torch.nan_to_num":     entry(opNanToNum, expansionKinds...),
		"torch.float_power":    entry(opFloatPower, "Pow", "Cast"),
		"torch.addcmul":        entry(opAddc(canon.Mul), "Mul", "Div", "Add", "Cast"),
		"torch.addcdiv":        entry(opAddc(canon.Div), "Mul", "Div", "Add", "Cast"),
		"torch.lerp":           entry(opLerp, expansionKinds...),
		"torch.true_divide":    entry(binaryOp(canon.Div, "div"), divideKinds...),
		"torch.lgamma":         entry(refuseOp("lgamma (log |Γ(x)|) has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.digamma":        entry(refuseOp("digamma has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.polygamma":      entry(refuseOp("polygamma has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.mvlgamma":       entry(refuseOp("mvlgamma is a sum of lgamma terms, which has no ONNX operator and no exact expansion")),
		"torch.i0":             entry(refuseOp("the Bessel function i0 has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.special_erfcx":  entry(refuseOp("erfcx has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.special_i0e":    entry(refuseOp("i0e has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.special_i1":     entry(refuseOp("the Bessel function i1 has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.special_i1e":    entry(refuseOp("i1e has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.special_ndtri":  entry(refuseOp("ndtri (the inverse normal CDF) has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.special_zeta":   entry(refuseOp("the Hurwitz zeta function has no ONNX operator and no exact expansion into elementwise operators")),
		"torch.special_entr":   entry(opEntr, expansionKinds...),
		"torch.special_expit":  entry(unaryOp(canon.Sigmoid), "Sigmoid"),
		"torch.special_log1p":  entry(opUnaryExpansion(unaryExpansions["log1p"]), expansionKinds...),
		"torch.special_expm1":  entry(opUnaryExpansion(unaryExpansions["expm1"]), expansionKinds...),
		"torch.special_exp2":   entry(opUnaryExpansion(unaryExpansions["exp2"]), expansionKinds...),
		"torch.special_xlogy":  entry(opBinaryExpansion(binaryExpansions["xlogy"]), expansionKinds...),
		"torch.special_sinc":   entry(opUnaryExpansion(unaryExpansions["sinc"]), expansionKinds...),
		"torch.special_logit":  entry(opLogit, expansionKinds...),
		"torch.special_expit_": entry(inPlace(unaryOp(canon.Sigmoid)), "Sigmoid"),
	}
	for name, f := range unaryExpansions {
		entries["torch."+name] = entry(opUnaryExpansion(f), expansionKinds...)
		if name != "isfinite" {
			entries["torch."+name+"_"] = entry(inPlace(opUnaryExpansion(f)), expansionKinds...)
		}
	}
	// heaviside keeps integer dtypes.
	entries["torch.heaviside"] = entry(opBinaryOfDType(heaviside), expansionKinds...)
	entries["torch.heaviside_"] = entry(inPlace(opBinaryOfDType(heaviside)), expansionKinds...)
	for name, f := range binaryExpansions {
		entries["torch."+name] = entry(opBinaryExpansion(f), expansionKinds...)
		entries["torch."+name+"_"] = entry(inPlace(opBinaryExpansion(f)), expansionKinds...)
	}
	entries["torch.arctan2"] = entries["torch.atan2"]
	entries["torch.arctan2_"] = entries["torch.atan2_"]
	for _, name := range []string{"logit", "nan_to_num", "float_power", "addcmul", "addcdiv", "lerp", "true_divide"} {
		e := entries["torch."+name]
		entries["torch."+name+"_"] = opEntry{handler: inPlace(e.handler), kinds: e.kinds}
	}
	optable.Add(&opTable, entries)
}

// refuseOp is the handler of an operator that cannot be read exactly.
func refuseOp(why string) opHandler {
	return func(c *opCall) (value, error) {
		return nil, c.errf("not supported: %s", why)
	}
}

func opPositive(c *opCall) (value, error) {
	return c.bindInput("input")
}

func opUnaryExpansion(f func(e *expansion, x *tensorVal) *tensorVal) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input")
		if err != nil {
			return nil, err
		}
		e := newExpansion(c)
		return e.result(f(e, x))
	}
}

// floatPair binds two operands, promotes them to one dtype and, if that
// is an integer or bool one, to float32 (the functions here are float
// functions).
func floatPair(c *opCall) (*tensorVal, *tensorVal, *expansion, error) {
	a, b, err := tensorPair(c)
	if err != nil {
		return nil, nil, nil, err
	}
	e := newExpansion(c)
	a, b = e.floatInput(a), e.floatInput(b)
	return a, b, e, e.err
}

func opBinaryExpansion(f func(e *expansion, a, b *tensorVal) *tensorVal) opHandler {
	return func(c *opCall) (value, error) {
		a, b, e, err := floatPair(c)
		if err != nil {
			return nil, err
		}
		return e.result(f(e, a, b))
	}
}

// logBase is log(x)/ln(base), the constant rounded to x's dtype.
func logBase(e *expansion, x *tensorVal, lnBase float64) *tensorVal {
	x = e.floatInput(x)
	return e.div(e.fn(canon.MathLog, x), e.num(lnBase, x))
}

// atan2 is atan(a/b) moved to b's half plane: +π or -π (by a's sign bit)
// where b's sign bit is set. The ratio is a itself where both are zero
// (atan2(±0, ±0) is ±0 or ±π), and ±1 where both are infinite (±π/4,
// ±3π/4).
func atan2(e *expansion, a, b *tensorVal) *tensorVal {
	bothInf := e.and(e.isInf(a, true, true), e.isInf(b, true, true))
	a = e.where(bothInf, e.fn(canon.MathSign, a), a)
	b = e.where(bothInf, e.fn(canon.MathSign, b), b)
	zero := e.num(0, a)
	bothZero := e.and(e.cmp(canon.CmpEqual, a, zero), e.cmp(canon.CmpEqual, b, zero))
	base := e.fn(canon.MathAtan, e.where(bothZero, a, e.div(a, b)))
	pi := e.pi(a)
	turn := e.where(e.signBit(a), e.fn(canon.MathNeg, pi), pi)
	return e.add(base, e.where(e.signBit(b), turn, zero))
}

func logAddExp(e *expansion, a, b *tensorVal, tail func(negDist *tensorVal) *tensorVal) *tensorVal {
	m := e.max(a, b)
	d := e.fn(canon.MathNeg, e.fn(canon.MathAbs, e.sub(a, b)))
	r := e.add(m, tail(d))
	sameInf := e.and(e.isInf(a, true, true), e.cmp(canon.CmpEqual, a, b))
	return e.where(sameInf, a, r)
}

// hypot is m·sqrt(1 + (n/m)²) for m, n the larger and smaller magnitude,
// which neither overflows nor underflows where the result does not; 0
// where both are 0, +inf where either is infinite (even with a NaN).
func hypot(e *expansion, a, b *tensorVal) *tensorVal {
	x, y := e.fn(canon.MathAbs, a), e.fn(canon.MathAbs, b)
	m, n := e.max(x, y), e.min(x, y)
	r := e.div(n, m)
	one := e.num(1, a)
	h := e.mul(m, e.fn(canon.MathSqrt, e.add(one, e.mul(r, r))))
	h = e.where(e.cmp(canon.CmpEqual, m, e.num(0, a)), m, h)
	return e.where(e.or(e.isInf(x, true, false), e.isInf(y, true, false)), e.num(math.Inf(1), a), h)
}

func torchSign(e *expansion, x *tensorVal) *tensorVal {
	s := e.fn(canon.MathSign, x)
	if !e.dtype(x).IsFloat() {
		return s
	}
	return e.where(e.isNaN(x), e.num(0, x), s)
}

// copySign is |a| with b's sign bit. A NaN b counts as positive: no
// canonical op reads a NaN's sign bit.
func copySign(e *expansion, a, b *tensorVal) *tensorVal {
	abs := e.fn(canon.MathAbs, a)
	return e.where(e.signBit(b), e.fn(canon.MathNeg, abs), abs)
}

// opEntr: torch.special.entr is -x·log(x) for x > 0, 0 at 0, -inf below
// 0, and NaN for NaN.
func opEntr(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	e := newExpansion(c)
	x = e.floatInput(x)
	zero := e.num(0, x)
	r := e.fn(canon.MathNeg, e.mul(x, e.fn(canon.MathLog, x)))
	r = e.where(e.cmp(canon.CmpEqual, x, zero), zero, r)
	r = e.where(e.cmp(canon.CmpLess, x, zero), e.num(math.Inf(-1), x), r)
	return e.result(r)
}

// opLogit: log(x/(1-x)), x first clamped to [eps, 1-eps] when eps is
// given (NaN passes the clamp, as in torch).
func opLogit(c *opCall) (value, error) {
	x, err := c.bindInput("input", "eps=None")
	if err != nil {
		return nil, err
	}
	e := newExpansion(c)
	x = e.floatInput(x)
	if !c.isNone(1) {
		eps, err := c.float(1)
		if err != nil {
			return nil, err
		}
		lo := e.num(eps, x)
		hi := e.num(float64(1-float32(eps)), x)
		if e.dtype(x) == canon.Float64 {
			hi = e.num(1-eps, x)
		}
		x = e.where(e.cmp(canon.CmpLess, x, lo), lo, e.where(e.cmp(canon.CmpGreater, x, hi), hi, x))
	}
	return e.result(e.fn(canon.MathLog, e.div(x, e.sub(e.num(1, x), x))))
}

// opNanToNum replaces NaN, +inf and -inf (the last two by the dtype's
// largest and lowest finite values unless given).
func opNanToNum(c *opCall) (value, error) {
	x, err := c.bindInput("input", "nan=None", "posinf=None", "neginf=None")
	if err != nil {
		return nil, err
	}
	e := newExpansion(c)
	dt := e.dtype(x)
	if !dt.IsFloat() {
		return x, nil
	}
	hugest := map[canon.DType]float64{canon.Float32: math.MaxFloat32, canon.Float64: math.MaxFloat64, canon.Float16: 65504,
		canon.BFloat16: 3.3895313892515355e38}[dt]
	vals := []float64{0, hugest, -hugest}
	for i := range vals {
		if !c.isNone(i + 1) {
			if vals[i], err = c.float(i + 1); err != nil {
				return nil, err
			}
		}
	}
	r := e.where(e.isNaN(x), e.num(vals[0], x), x)
	r = e.where(e.isInf(x, true, false), e.num(vals[1], x), r)
	r = e.where(e.isInf(x, false, true), e.num(vals[2], x), r)
	return e.result(r)
}

// opFloatPower computes in float64, as torch.float_power does.
func opFloatPower(c *opCall) (value, error) {
	if err := c.bind("input", "exponent"); err != nil {
		return nil, err
	}
	e := newExpansion(c)
	operand := func(i int) *tensorVal {
		if t, ok := c.bound[i].(*tensorVal); ok {
			return e.cast(t, canon.Float64)
		}
		s, ok := scalarOf(c.bound[i])
		if !ok {
			e.err = c.errf("argument %s must be a Tensor or a number, got %s", c.params[i], typeName(c.bound[i]))
			return nil
		}
		return e.numOf(s.f, canon.Float64)
	}
	x, y := operand(0), operand(1)
	if e.err == nil && x.konst != nil && y.konst != nil {
		return nil, c.errf("needs a tensor operand")
	}
	return e.result(e.op(&canon.Pow{}, x, y))
}

// opAddc: torch.addcmul/addcdiv(input, t1, t2, value) is
// input + (value·t1) ∘ t2, evaluated in that order.
func opAddc(fn canon.BinaryFn) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "tensor1", "tensor2", "value=1")
		if err != nil {
			return nil, err
		}
		t1, err := c.tensor(1)
		if err != nil {
			return nil, err
		}
		t2, err := c.tensor(2)
		if err != nil {
			return nil, err
		}
		v, err := c.float(3)
		if err != nil {
			return nil, err
		}
		if t1, t2, err = promoteTensors(c, t1, t2); err != nil {
			return nil, err
		}
		if x, t1, err = promoteTensors(c, x, t1); err != nil {
			return nil, err
		}
		if t1, t2, err = promoteTensors(c, t1, t2); err != nil {
			return nil, err
		}
		e := newExpansion(c)
		if fn == canon.Div && !e.dtype(t1).IsFloat() {
			return nil, c.errf("integer division with addcdiv is not supported by torch; use floats")
		}
		if v != 1 {
			t1 = e.mul(e.num(v, t1), t1)
		}
		return e.result(e.add(x, e.op(&canon.Binary{Fn: fn}, t1, t2)))
	}
}

// opLerp: torch.lerp(start, end, weight) evaluates start + w·(end-start)
// for |w| < 0.5 and end - (end-start)·(1-w) otherwise, which is exact at
// both ends.
func opLerp(c *opCall) (value, error) {
	x, err := c.bindInput("input", "end", "weight")
	if err != nil {
		return nil, err
	}
	end, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if x, end, err = promoteTensors(c, x, end); err != nil {
		return nil, err
	}
	e := newExpansion(c)
	diff := e.sub(end, x)
	if w, ok := c.bound[2].(*tensorVal); ok && w.konst == nil {
		near := e.add(x, e.mul(w, diff))
		far := e.sub(end, e.mul(diff, e.sub(e.num(1, w), w)))
		small := e.cmp(canon.CmpLess, e.fn(canon.MathAbs, w), e.num(0.5, w))
		return e.result(e.where(small, near, far))
	}
	s, ok := scalarOf(c.bound[2])
	if !ok {
		return nil, c.errf("argument weight must be a Tensor or a number, got %s", typeName(c.bound[2]))
	}
	w := s.f
	if e.dtype(x) != canon.Float64 {
		w = float64(float32(w))
	}
	if math.Abs(w) < 0.5 {
		return e.result(e.add(x, e.mul(e.num(w, x), diff)))
	}
	oneMinus := 1 - w
	if e.dtype(x) != canon.Float64 {
		oneMinus = float64(1 - float32(w))
	}
	return e.result(e.sub(end, e.mul(diff, e.num(oneMinus, x))))
}

// heaviside is values where x is 0, else 1 where x > 0 and 0 elsewhere
// (NaN included), as torch computes it; integer dtypes stay.
func heaviside(e *expansion, x, v *tensorVal) *tensorVal {
	step := e.cast(e.cmp(canon.CmpGreater, x, e.num(0, x)), e.dtype(x))
	return e.where(e.cmp(canon.CmpEqual, x, e.num(0, x)), v, step)
}
