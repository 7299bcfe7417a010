package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The logic family: And, Or, Xor, Not, BitShift, BitwiseAnd/Or/Xor/Not,
// the variadic Max, Min, Sum and Mean, Mod and Pow.

func init() {
	logic := func(fn canon.LogicFn) func(c *nodeCtx) error {
		return simple(func() canon.Op { return &canon.Logic{Fn: fn} })
	}
	bitwise := func(fn canon.BitwiseFn) func(c *nodeCtx) error {
		return simple(func() canon.Op { return &canon.Bitwise{Fn: fn} })
	}
	variadic := func(fn canon.VariadicFn) func(c *nodeCtx) error {
		return func(c *nodeCtx) error { return convVariadic(c, fn) }
	}
	optable.Add(&ops, map[string]opEntry{
		// Before opset 7 the binary ops broadcast only with broadcast=1
		// and an axis (the arithmetic ops are read from 7 for the same
		// reason).
		"And":      {logic(canon.LogicAnd), 7, []string{"And"}},
		"Or":       {logic(canon.LogicOr), 7, []string{"Or"}},
		"Xor":      {logic(canon.LogicXor), 7, []string{"Xor"}},
		"Not":      {simple(func() canon.Op { return &canon.Not{} }), 1, []string{"Not"}},
		"BitShift": {convBitShift, 11, []string{"BitShift"}},
		// The Bitwise ops are new in opset 18.
		"BitwiseAnd": {bitwise(canon.BitAnd), 18, []string{"BitwiseAnd"}},
		"BitwiseOr":  {bitwise(canon.BitOr), 18, []string{"BitwiseOr"}},
		"BitwiseXor": {bitwise(canon.BitXor), 18, []string{"BitwiseXor"}},
		"BitwiseNot": {simple(func() canon.Op { return &canon.BitwiseNot{} }), 18, []string{"BitwiseNot"}},
		// Versions 1 and 6 take equal shapes only (version 1 also a
		// consumed_inputs attribute, which inference ignores): a subset of
		// version 8's multidirectional broadcasting.
		"Max":  {variadic(canon.VarMax), 1, []string{"Max"}},
		"Min":  {variadic(canon.VarMin), 1, []string{"Min"}},
		"Sum":  {variadic(canon.VarSum), 1, []string{"Sum"}},
		"Mean": {variadic(canon.VarMean), 1, []string{"Mean"}},
		"Mod":  {convMod, 10, []string{"Mod"}},
		// Pow-1 broadcast with broadcast=1 and an axis; 7 is NumPy's.
		"Pow": {simple(func() canon.Op { return &canon.Pow{} }), 7, []string{"Pow"}},
	})
}

func convBitShift(c *nodeCtx) error {
	var left bool
	switch d := c.str("direction", ""); d {
	case "LEFT":
		left = true
	case "RIGHT":
	default:
		return c.errf("direction is %q; it must be LEFT or RIGHT", d)
	}
	return c.emit(&canon.BitShift{Left: left}, []string{c.in(0), c.in(1)}, c.out1())
}

// convVariadic reads Max/Min/Sum/Mean with their 1..N inputs; a single
// input keeps its node, so that its dtype is still checked.
func convVariadic(c *nodeCtx, fn canon.VariadicFn) error {
	if len(c.n.Input) == 0 {
		return c.errf("has no inputs; %s takes 1 or more", fn)
	}
	for i, name := range c.n.Input {
		if name == "" {
			return c.errf("input %d is empty; every input of %s is required", i, fn)
		}
	}
	return c.emit(&canon.Variadic{Fn: fn}, append([]string{}, c.n.Input...), c.out1())
}

// convMod: fmod=0 is Python's %, which ONNX defines for integers only.
func convMod(c *nodeCtx) error {
	fmod := c.int("fmod", 0)
	if fmod != 0 && fmod != 1 {
		return c.errf("fmod is %d; it must be 0 or 1", fmod)
	}
	if dt := c.info(0).DType; fmod == 0 && dt.IsFloat() {
		return c.errf("fmod=0 on %s inputs: ONNX requires fmod=1 for floating-point Mod", dt)
	}
	return c.emit(&canon.Mod{Fmod: fmod == 1}, []string{c.in(0), c.in(1)}, c.out1())
}
