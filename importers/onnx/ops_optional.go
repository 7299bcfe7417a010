package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Every value the importer accepts is a tensor: optional- and
// sequence-typed graph inputs, outputs and subgraph values are refused
// where they are declared, and no op making an optional or a sequence is
// read. On a tensor, ONNX's optional ops are decided by the type alone
// (OptionalGetElement-18 returns a tensor input as it is; OptionalHasElement
// is true for a tensor and false for an absent input), so they are read as
// Identity and as a boolean constant.
func init() {
	optable.Add(&ops, map[string]opEntry{
		"OptionalGetElement": {convOptionalGetElement, 15, []string{"Identity"}},
		"OptionalHasElement": {convOptionalHasElement, 15, []string{"Constant"}},
	})
}

func convOptionalGetElement(c *nodeCtx) error {
	if c.in(0) == "" {
		return c.errf("needs its input")
	}
	return c.emit(&canon.Identity{}, []string{c.in(0)}, c.out1())
}

func convOptionalHasElement(c *nodeCtx) error {
	has := byte(0)
	if c.in(0) != "" {
		has = 1 // a tensor: always an element
	}
	t := &canon.Tensor{DType: canon.Bool, Shape: []int64{}, Data: []byte{has}}
	return c.emit(&canon.Constant{Value: t}, nil, c.out1())
}
