package compare

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// ONNXBackendValue is ONNXBackend for any run-time value: sequences must
// have the same length and dtype and match tensor by tensor; optionals
// must both be empty or both hold matching values.
func ONNXBackendValue(got, want canon.Value) error {
	if got == nil || want == nil {
		if got == want {
			return nil
		}
		return fmt.Errorf("one value is missing")
	}
	if got.ValueKind() != want.ValueKind() {
		return fmt.Errorf("got a %s, want a %s", got.ValueKind(), want.ValueKind())
	}
	switch w := want.(type) {
	case *canon.Tensor:
		return ONNXBackend(got.(*canon.Tensor), w)
	case *canon.Sequence:
		g := got.(*canon.Sequence)
		if len(g.Tensors) != len(w.Tensors) {
			return fmt.Errorf("the sequence has %d tensors, want %d", len(g.Tensors), len(w.Tensors))
		}
		if g.DType != w.DType && w.DType != canon.Undefined {
			return fmt.Errorf("the sequence holds %s, want %s", g.DType, w.DType)
		}
		for i := range w.Tensors {
			if err := ONNXBackend(g.Tensors[i], w.Tensors[i]); err != nil {
				return fmt.Errorf("tensor %d of the sequence: %w", i, err)
			}
		}
		return nil
	case *canon.OptionalValue:
		g := got.(*canon.OptionalValue)
		if (g.Value == nil) != (w.Value == nil) {
			return fmt.Errorf("the optional is %s, want %s", emptiness(g), emptiness(w))
		}
		if w.Value == nil {
			return nil
		}
		return ONNXBackendValue(g.Value, w.Value)
	}
	return fmt.Errorf("unknown value type %T", want)
}

func emptiness(o *canon.OptionalValue) string {
	if o.Value == nil {
		return "empty"
	}
	return "not empty"
}
