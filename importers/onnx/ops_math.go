package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The math family: Abs, Neg, Sign, Exp, Log, Sqrt, Reciprocal, Floor,
// Ceil, Round, Erf, the trigonometric and hyperbolic functions, IsNaN and
// IsInf. Version 1 of the oldest ones differs only in the legacy
// consumed_inputs attribute, which is ignored; later versions add types.
// A lone Erf is read as Erf; the Gelu fusion still takes Erf expansions of
// Gelu first.

// mathSince is the first opset of each function's ONNX op.
var mathSince = map[canon.MathFn]int64{
	canon.MathAbs: 1, canon.MathNeg: 1, canon.MathExp: 1, canon.MathLog: 1, canon.MathSqrt: 1,
	canon.MathReciprocal: 1, canon.MathFloor: 1, canon.MathCeil: 1,
	canon.MathSign: 9, canon.MathErf: 9, canon.MathRound: 11,
	canon.MathSin: 7, canon.MathCos: 7, canon.MathTan: 7, canon.MathAsin: 7, canon.MathAcos: 7, canon.MathAtan: 7,
	canon.MathSinh: 9, canon.MathCosh: 9, canon.MathAsinh: 9, canon.MathAcosh: 9, canon.MathAtanh: 9,
}

func init() {
	entries := map[string]opEntry{
		"IsNaN": {simple(func() canon.Op { return &canon.IsNaN{} }), 9, []string{"IsNaN"}},
		"IsInf": {func(c *nodeCtx) error {
			op := &canon.IsInf{DetectPositive: c.int("detect_positive", 1) != 0, DetectNegative: c.int("detect_negative", 1) != 0}
			return c.emit(op, []string{c.in(0)}, c.out1())
		}, 10, []string{"IsInf"}},
	}
	for _, fn := range canon.MathFns() {
		entries[fn.String()] = opEntry{func(c *nodeCtx) error {
			return c.emit(&canon.Math{Fn: fn}, []string{c.in(0)}, c.out1())
		}, mathSince[fn], []string{fn.String()}}
	}
	optable.Add(&ops, entries)
}
