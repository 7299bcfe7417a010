package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The activation family: LogSoftmax, Hardmax, Celu, Mish, ThresholdedRelu,
// Shrink, Einsum.

func init() {
	coerced := []string{"Flatten", "Reshape", "Shape"} // helpers of the pre-13 2-D form
	optable.Add(&ops, map[string]opEntry{
		"LogSoftmax": {func(c *nodeCtx) error {
			return convAlongAxis(c, func(axis int64) canon.Op { return &canon.LogSoftmax{Axis: axis} })
		}, 1, append([]string{"LogSoftmax"}, coerced...)},
		"Hardmax": {func(c *nodeCtx) error {
			return convAlongAxis(c, func(axis int64) canon.Op { return &canon.Hardmax{Axis: axis} })
		}, 1, append([]string{"Hardmax"}, coerced...)},
		"Celu": {func(c *nodeCtx) error {
			a := c.float("alpha", 1)
			if a == 0 {
				c.fail("alpha is 0; Celu divides by it")
			}
			return c.emit(&canon.Celu{Alpha: a}, []string{c.in(0)}, c.out1())
		}, 12, []string{"Celu"}},
		"Mish": {simple(func() canon.Op { return &canon.Mish{} }), 18, []string{"Mish"}},
		"ThresholdedRelu": {func(c *nodeCtx) error {
			return c.emit(&canon.ThresholdedRelu{Alpha: c.float("alpha", 1)}, []string{c.in(0)}, c.out1())
		}, 10, []string{"ThresholdedRelu"}},
		"Shrink": {func(c *nodeCtx) error {
			return c.emit(&canon.Shrink{Bias: c.float("bias", 0), Lambd: c.float("lambd", 0.5)}, []string{c.in(0)}, c.out1())
		}, 9, []string{"Shrink"}},
		"Einsum": {convEinsum, 12, []string{"Einsum"}},
	})
}

// convAlongAxis reads LogSoftmax and Hardmax. From opset 13 they work along
// one axis (default -1); before, like Softmax, they flatten the input to
// 2-D at axis (default 1) and work along the rows, which is the one-axis
// op on the last axis, or on a Flatten, then a Reshape back.
func convAlongAxis(c *nodeCtx, mk func(axis int64) canon.Op) error {
	outs := c.out1()
	if c.im.opset >= 13 {
		axis := c.int("axis", -1)
		if r, ok := c.rank(0); ok {
			axis = c.normAxis(axis, r, "axis")
		}
		return c.emit(mk(axis), []string{c.in(0)}, outs)
	}
	r := c.needRank(0, c.op+" before opset 13")
	axis := c.int("axis", 1)
	if c.err != nil {
		return c.err
	}
	if axis < 0 {
		axis += int64(r)
	}
	if axis < 0 || axis > int64(r) {
		return c.errf("axis %d is out of range for rank %d", c.int("axis", 1), r)
	}
	if axis == int64(r-1) {
		return c.emit(mk(axis), []string{c.in(0)}, outs)
	}
	flat, err := c.emitAux("flatten", &canon.Flatten{Axis: axis}, c.in(0))
	if err != nil {
		return err
	}
	y := c.im.fresh(c.name + "/rows")
	if err := c.emit(mk(1), []string{flat}, []string{y}); err != nil {
		return err
	}
	if shape, ok := c.info(0).StaticShape(); ok {
		return c.emitNamed(c.im.freshNode(c.name+"/reshape"), &canon.Reshape{Shape: shape}, []string{y}, outs)
	}
	// Dynamic dims: restore the shape at run time.
	shp, err := c.emitAux("shape", canon.NewShapeOf(), c.in(0))
	if err != nil {
		return err
	}
	return c.emitNamed(c.im.freshNode(c.name+"/reshape"), &canon.Reshape{}, []string{y, shp}, outs)
}

// convEinsum resolves the implicit output form and checks the equation
// against the inputs.
func convEinsum(c *nodeCtx) error {
	if !c.has("equation") {
		return c.errf("the equation attribute is required")
	}
	eq, err := canon.NormalizeEinsum(c.str("equation", ""))
	if err != nil {
		return c.errf("%v", err)
	}
	if len(c.n.Input) == 0 {
		return c.errf("Einsum needs at least one input")
	}
	for i, x := range c.n.Input {
		if x == "" {
			return c.errf("input %d is empty; every Einsum operand must be given", i)
		}
	}
	return c.emit(&canon.Einsum{Equation: eq}, append([]string{}, c.n.Input...), c.out1())
}
