package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// CumProd (opset 26), read as CumSum is: a constant axis input becomes the
// attribute.

func init() {
	optable.Add(&ops, map[string]opEntry{
		"CumProd": {convCumProd, 26, []string{"CumProd"}},
	})
}

func convCumProd(c *nodeCtx) error {
	op := &canon.CumProd{Exclusive: c.int("exclusive", 0) != 0, Reverse: c.int("reverse", 0) != 0}
	ins := []string{c.in(0)}
	switch {
	case c.in(1) == "":
		c.fail("input axis is required")
	case c.dynamic(1):
		ins = append(ins, c.in(1))
	default:
		op.Axis = int64(c.constScalar(1, "axis", 0))
		if r, ok := c.rank(0); ok {
			op.Axis = c.normAxis(op.Axis, r, "axis")
		}
	}
	return c.emit(op, ins, c.out1())
}
