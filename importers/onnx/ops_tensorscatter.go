package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// TensorScatter (opset 24): the key/value cache update.

func init() {
	optable.Add(&ops, map[string]opEntry{
		"TensorScatter": {convTensorScatter, 24, []string{"TensorScatter"}},
	})
}

func convTensorScatter(c *nodeCtx) error {
	op := &canon.TensorScatter{Axis: c.int("axis", -2)}
	switch mode := c.str("mode", "linear"); mode {
	case "linear":
	case "circular":
		op.Circular = true
	default:
		c.fail("mode %q is not linear or circular", mode)
	}
	if r, ok := c.rank(0); ok {
		op.Axis = c.normAxis(op.Axis, r, "axis")
	}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}
