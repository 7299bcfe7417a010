package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// BitCast (opset 26): its to attribute is read as Cast's is.

func init() {
	optable.Add(&ops, map[string]opEntry{
		"BitCast": {func(c *nodeCtx) error {
			return c.emit(&canon.BitCast{To: c.castTarget()}, []string{c.in(0)}, c.out1())
		}, 26, []string{"BitCast"}},
	})
}
