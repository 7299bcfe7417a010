package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	// LRN-1 and LRN-13 (bfloat16 added) have the same attributes.
	optable.Add(&ops, map[string]opEntry{
		"LRN": {convLRN, 1, []string{"LRN"}},
	})
}

func convLRN(c *nodeCtx) error {
	if !c.has("size") {
		return c.errf("LRN needs its size attribute")
	}
	size := c.int("size", 0)
	if size < 1 {
		return c.errf("LRN size %d must be >= 1", size)
	}
	op := &canon.LRN{Size: size, Alpha: c.float("alpha", 0.0001), Beta: c.float("beta", 0.75), Bias: c.float("bias", 1)}
	return c.emit(op, []string{c.in(0)}, c.out1())
}
