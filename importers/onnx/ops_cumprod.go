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
	ins := c.cumulativeAxis(&op.Axis)
	return c.emit(op, ins, c.out1())
}
