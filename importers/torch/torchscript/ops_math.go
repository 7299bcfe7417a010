package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The math family. Traced code names the canonical spelling of each
// function (torch.asin for torch.arcsin, torch.neg for -x and
// torch.negative, torch.erf for torch.special.erf). torch.round rounds half
// to even, as canon's Round does; its decimals argument is read as
// PyTorch computes it: round(x·10^d)/10^d, or round(x/10^-d)·10^-d for
// negative d.

// mathFromTorch maps each torch function to its canonical function
// (torch.sign, 0 at NaN, is an expansion in ops_math2.go).
var mathFromTorch = map[string]canon.MathFn{
	"abs": canon.MathAbs, "neg": canon.MathNeg, "exp": canon.MathExp, "log": canon.MathLog,
	"sqrt": canon.MathSqrt, "reciprocal": canon.MathReciprocal, "floor": canon.MathFloor, "ceil": canon.MathCeil,
	"erf": canon.MathErf, "sin": canon.MathSin, "cos": canon.MathCos, "tan": canon.MathTan,
	"asin": canon.MathAsin, "acos": canon.MathAcos, "atan": canon.MathAtan, "sinh": canon.MathSinh, "cosh": canon.MathCosh,
	"asinh": canon.MathAsinh, "acosh": canon.MathAcosh, "atanh": canon.MathAtanh,
}

func init() {
	entries := map[string]opEntry{
		"torch.round":    entry(opRound, "Round", "Mul", "Div"),
		"torch.round_":   entry(inPlace(opRound), "Round", "Mul", "Div"),
		"torch.isnan":    entry(opIsNaN, "IsNaN"),
		"torch.isinf":    entry(opIsInf(true, true), "IsInf"),
		"torch.isposinf": entry(opIsInf(true, false), "IsInf"),
		"torch.isneginf": entry(opIsInf(false, true), "IsInf"),
	}
	for name, fn := range mathFromTorch {
		entries["torch."+name] = entry(mathOp(fn), fn.String())
		entries["torch."+name+"_"] = entry(inPlace(mathOp(fn)), fn.String())
	}
	optable.Add(&opTable, entries)
}

func mathOp(fn canon.MathFn) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input")
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.Math{Fn: fn}, x)
	}
}

func opRound(c *opCall) (value, error) {
	x, err := c.bindInput("input", "decimals=0")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d == 0 {
		return c.b().emit1(c.scope, &canon.Math{Fn: canon.MathRound}, x)
	}
	if d > 38 || d < -38 {
		return nil, c.errf("decimals=%d: 10^%d is beyond float32's range", d, d)
	}
	// PyTorch scales by 10^|d| in the tensor's dtype, rounds, and undoes
	// the scaling: multiply then divide for d > 0, the other way for d < 0.
	scale, unscale := canon.Mul, canon.Div
	if d < 0 {
		scale, unscale = canon.Div, canon.Mul
	}
	_, k, err := promoteOperands(c, x, nil, nil, math.Pow(10, math.Abs(float64(d))))
	if err != nil {
		return nil, err
	}
	s, err := c.b().emit1(c.scope, &canon.Binary{Fn: scale}, x, k)
	if err != nil {
		return nil, err
	}
	r, err := c.b().emit1(c.scope, &canon.Math{Fn: canon.MathRound}, s)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Binary{Fn: unscale}, r, k)
}

func opIsNaN(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.IsNaN{}, x)
}

func opIsInf(pos, neg bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input")
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.IsInf{DetectPositive: pos, DetectNegative: neg}, x)
	}
}
