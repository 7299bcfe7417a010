package opmatrix

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
)

// wrapInputs gives each example input the kind its graph input declares:
// a sequence of two copies of the tensor, or an optional holding it.
func wrapInputs(g *canon.Graph, in map[string]*canon.Tensor) map[string]canon.Value {
	out := map[string]canon.Value{}
	for _, v := range g.Inputs {
		t, ok := in[v.Name]
		if !ok {
			continue
		}
		switch v.Kind {
		case canon.SequenceValue:
			out[v.Name] = &canon.Sequence{DType: t.DType, Tensors: []*canon.Tensor{t, t}}
		case canon.OptionalTensor:
			out[v.Name] = &canon.OptionalValue{Kind: v.Kind, DType: t.DType, Value: t}
		case canon.OptionalSequence:
			out[v.Name] = &canon.OptionalValue{Kind: v.Kind, DType: t.DType, Value: &canon.Sequence{DType: t.DType, Tensors: []*canon.Tensor{t}}}
		default:
			out[v.Name] = t
		}
	}
	return out
}

// sameValues compares two run-time values tensor by tensor (rtol and atol
// 1e-5).
func sameValues(got, want canon.Value) error {
	if got == nil || want == nil || got.ValueKind() != want.ValueKind() {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	switch w := want.(type) {
	case *canon.Tensor:
		res, err := compare.Tensors(got.(*canon.Tensor), w, 1e-5, 1e-5)
		if err != nil {
			return err
		}
		if !res.OK {
			return fmt.Errorf("%+v", res)
		}
	case *canon.Sequence:
		g := got.(*canon.Sequence)
		if len(g.Tensors) != len(w.Tensors) {
			return fmt.Errorf("%d tensors, want %d", len(g.Tensors), len(w.Tensors))
		}
		for i := range w.Tensors {
			if err := sameValues(g.Tensors[i], w.Tensors[i]); err != nil {
				return fmt.Errorf("tensor %d: %v", i, err)
			}
		}
	case *canon.OptionalValue:
		g := got.(*canon.OptionalValue)
		if (g.Value == nil) != (w.Value == nil) {
			return fmt.Errorf("one optional is empty")
		}
		if w.Value != nil {
			return sameValues(g.Value, w.Value)
		}
	}
	return nil
}
