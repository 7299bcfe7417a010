package compare

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// CheckValue is Check for any run-time value: a tensor as Check compares
// it; a sequence by its length, then tensor by tensor (each with its own
// rounding allowance); an optional by its presence, then by what it holds.
// A structural difference (a length, a tensor's shape or dtype inside a
// sequence, an empty optional against a full one) is a failed Result whose
// Structure says what differs; values of different kinds are an error.
func (t Tolerance) CheckValue(got, want canon.Value) (Result, error) {
	if got == nil || want == nil {
		return Result{}, fmt.Errorf("missing value")
	}
	if got.ValueKind() != want.ValueKind() {
		return Result{}, fmt.Errorf("a %s is compared with a %s", got.ValueKind(), want.ValueKind())
	}
	switch w := want.(type) {
	case *canon.Tensor:
		return t.Check(got.(*canon.Tensor), w)
	case *canon.Sequence:
		return t.checkSequence(got.(*canon.Sequence), w)
	case *canon.OptionalValue:
		g := got.(*canon.OptionalValue)
		if (g.Value == nil) != (w.Value == nil) {
			return Result{Structure: fmt.Sprintf("the optional is %s, the reference %s", emptiness(g), emptiness(w))}, nil
		}
		if w.Value == nil {
			return Result{OK: true}, nil
		}
		r, err := t.CheckValue(g.Value, w.Value)
		if err != nil {
			return r, fmt.Errorf("the optional's value: %w", err)
		}
		return r, nil
	}
	return Result{}, fmt.Errorf("unknown value type %T", want)
}

func (t Tolerance) checkSequence(got, want *canon.Sequence) (Result, error) {
	if len(got.Tensors) != len(want.Tensors) {
		return Result{Structure: fmt.Sprintf("the sequence has %d tensors, the reference %d", len(got.Tensors), len(want.Tensors))}, nil
	}
	all := Result{OK: true}
	worst := -1
	for i, w := range want.Tensors {
		g := got.Tensors[i]
		if !slices.Equal(g.Shape, w.Shape) || (g.DType != w.DType && (g.DType == canon.String || w.DType == canon.String)) {
			return Result{Structure: fmt.Sprintf("tensor %d of the sequence is %s%v, the reference's %s%v", i, g.DType, g.Shape, w.DType, w.Shape)}, nil
		}
		r, err := t.Check(g, w)
		if err != nil {
			return Result{}, fmt.Errorf("tensor %d of the sequence: %w", i, err)
		}
		all.Elements += r.Elements
		all.Mismatched += r.Mismatched
		all.MaxRel = max(all.MaxRel, r.MaxRel)
		all.Allowance = max(all.Allowance, r.Allowance)
		all.OK = all.OK && r.OK
		// The worst element of the whole sequence: the first failing
		// tensor's, else the largest error's.
		firstFail := !r.OK && all.Mismatched == r.Mismatched
		if worst < 0 || firstFail || (all.Mismatched == 0 && r.MaxAbs > all.MaxAbs) {
			worst = i
			all.Worst, all.WorstGot, all.WorstWant, all.Text = r.Worst, r.WorstGot, r.WorstWant, r.Text
		}
		all.MaxAbs = max(all.MaxAbs, r.MaxAbs)
	}
	if worst >= 0 {
		all.Where = fmt.Sprintf("tensor %d of the sequence", worst)
	}
	return all, nil
}
