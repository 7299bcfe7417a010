package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Optional-15 wraps a value or makes an empty one of its type attribute;
// OptionalHasElement and OptionalGetElement-15 read optionals, and from 18
// also tensors and sequences, whose answer the type alone decides: they
// are read as a boolean constant and as Identity.
func init() {
	optable.Add(&ops, map[string]opEntry{
		"Optional":           {convOptional, 15, []string{"Optional"}},
		"OptionalGetElement": {convOptionalGetElement, 15, []string{"OptionalGetElement", "Identity"}},
		"OptionalHasElement": {convOptionalHasElement, 15, []string{"OptionalHasElement", "Constant"}},
	})
}

func convOptional(c *nodeCtx) error {
	op := &canon.Optional{}
	if c.in(0) == "" {
		a := c.attrs["type"]
		if a == nil || a.GetTp() == nil {
			return c.errf("an Optional without an input needs its type attribute")
		}
		t, err := typeInfo(a.GetTp())
		if err != nil {
			return c.errf("type: %v", err)
		}
		if !t.Kind.IsOptional() {
			// The attribute names what the optional holds.
			t.Kind = canon.OptionalOf(t.Kind)
		}
		op.Type = t
		return c.emit(op, nil, c.out1())
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convOptionalGetElement(c *nodeCtx) error {
	if c.in(0) == "" {
		return c.errf("needs its input")
	}
	if !c.info(0).Kind.IsOptional() {
		return c.emit(&canon.Identity{}, []string{c.in(0)}, c.out1())
	}
	return c.emit(&canon.OptionalGetElement{}, []string{c.in(0)}, c.out1())
}

func convOptionalHasElement(c *nodeCtx) error {
	if c.in(0) != "" && c.info(0).Kind.IsOptional() {
		return c.emit(&canon.OptionalHasElement{}, []string{c.in(0)}, c.out1())
	}
	has := byte(0)
	if c.in(0) != "" {
		has = 1 // a tensor or a sequence: always an element
	}
	t := &canon.Tensor{DType: canon.Bool, Shape: []int64{}, Data: []byte{has}}
	return c.emit(&canon.Constant{Value: t}, nil, c.out1())
}
