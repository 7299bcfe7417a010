package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// runAny runs g on tensor inputs, wrapping each one a sequence input
// takes into a sequence of two copies and each one an optional takes into
// an optional, and returns every tensor the outputs hold: a tensor output
// under its name, a sequence's tensors as "name[i]", an optional's value
// as "name?" (nothing for an empty one). The example-walking tests use it
// so that sequence and optional kinds run through them as tensors do.
func runAny(g *canon.Graph, in map[string]*canon.Tensor) (map[string]*canon.Tensor, error) {
	kinds := map[string]canon.ValueKind{}
	for _, v := range g.Inputs {
		kinds[v.Name] = v.Kind
	}
	vals := map[string]canon.Value{}
	for name, t := range in {
		switch kinds[name] {
		case canon.SequenceValue:
			vals[name] = &canon.Sequence{DType: t.DType, Tensors: []*canon.Tensor{t, t}}
		case canon.OptionalTensor:
			vals[name] = &canon.OptionalValue{Kind: canon.OptionalTensor, DType: t.DType, Value: t}
		case canon.OptionalSequence:
			vals[name] = &canon.OptionalValue{Kind: canon.OptionalSequence, DType: t.DType,
				Value: &canon.Sequence{DType: t.DType, Tensors: []*canon.Tensor{t}}}
		default:
			vals[name] = t
		}
	}
	outs, err := RunValues(g, vals)
	if err != nil {
		return nil, err
	}
	flat := map[string]*canon.Tensor{}
	for name, v := range outs {
		flatten(flat, name, v)
	}
	return flat, nil
}

func flatten(flat map[string]*canon.Tensor, name string, v canon.Value) {
	switch x := v.(type) {
	case *canon.Tensor:
		flat[name] = x
	case *canon.Sequence:
		for i, t := range x.Tensors {
			flat[fmt.Sprintf("%s[%d]", name, i)] = t
		}
	case *canon.OptionalValue:
		if x.Value != nil {
			flatten(flat, name+"?", x.Value)
		}
	}
}
