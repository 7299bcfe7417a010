package optimize

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// hasSequences reports whether g has sequence or optional values; such a
// graph is verified whole by verifyValues rather than node by node.
func hasSequences(g *canon.Graph) bool {
	if g.Values == nil {
		if err := g.Infer(); err != nil {
			return false
		}
	}
	return !g.Values.AllTensors()
}

// verifyValues is VerifyShapes for graphs with sequences and optionals:
// both graphs run in full on the same random inputs (a sequence input
// holds two random tensors, an optional one), and every output must match,
// sequences tensor by tensor.
func verifyValues(orig, opt *canon.Graph, shapes map[string][]int64, seed uint64, samples int, tol compare.Tolerance) error {
	pa, err := interp.New(orig)
	if err != nil {
		return &UnverifiableError{fmt.Errorf("verify: original graph: %w", err)}
	}
	pb, err := interp.New(opt)
	if err != nil {
		return fmt.Errorf("verify: optimized graph: %w", err)
	}
	for s := range samples {
		seedS := seed + uint64(s)
		in, err := randomValues(orig.Inputs, shapes, seedS)
		if err != nil {
			return &UnverifiableError{fmt.Errorf("verify: %w", err)}
		}
		want, err := pa.RunValues(in)
		if err != nil {
			return &UnverifiableError{fmt.Errorf("verify: the original graph fails on random inputs (seed %d): %w", seedS, err)}
		}
		got, err := pb.RunValues(in)
		if err != nil {
			return fmt.Errorf("verify: running the optimized graph: %w", err)
		}
		for _, o := range orig.Outputs {
			if err := closeEnoughValue(got[o.Name], want[o.Name], tol); err != nil {
				return fmt.Errorf("verify: output %q (random inputs, seed %d): %w", o.Name, seedS, err)
			}
		}
	}
	return nil
}

// randomValues makes random inputs of each input's kind.
func randomValues(inputs []canon.ValueInfo, shapes map[string][]int64, seed uint64) (map[string]canon.Value, error) {
	out := map[string]canon.Value{}
	for i, in := range inputs {
		elem := in.TensorType()
		elem.Name = in.Name
		one := func(k uint64) (*canon.Tensor, error) {
			m, err := tensorfile.RandomWithin([]canon.ValueInfo{elem}, shapes, seed*31+uint64(i)*7+k, interp.MemoryLimit())
			if err != nil {
				return nil, err
			}
			return m[in.Name], nil
		}
		a, err := one(0)
		if err != nil {
			return nil, err
		}
		switch in.Kind {
		case canon.TensorValue:
			out[in.Name] = a
		case canon.SequenceValue, canon.OptionalSequence:
			b, err := one(1)
			if err != nil {
				return nil, err
			}
			var v canon.Value = &canon.Sequence{DType: a.DType, Tensors: []*canon.Tensor{a, b}}
			if in.Kind.IsOptional() {
				v = &canon.OptionalValue{Kind: in.Kind, DType: a.DType, Value: v}
			}
			out[in.Name] = v
		case canon.OptionalTensor:
			out[in.Name] = &canon.OptionalValue{Kind: in.Kind, DType: a.DType, Value: a}
		}
	}
	return out, nil
}

func closeEnoughValue(got, want canon.Value, tol compare.Tolerance) error {
	if got == nil || want == nil {
		return fmt.Errorf("missing value")
	}
	if got.ValueKind() != want.ValueKind() {
		return fmt.Errorf("a %s, want a %s", got.ValueKind(), want.ValueKind())
	}
	switch w := want.(type) {
	case *canon.Tensor:
		return closeEnough(got.(*canon.Tensor), w, tol)
	case *canon.Sequence:
		g := got.(*canon.Sequence)
		if len(g.Tensors) != len(w.Tensors) {
			return fmt.Errorf("a sequence of %d tensors, want %d", len(g.Tensors), len(w.Tensors))
		}
		for i := range w.Tensors {
			if err := closeEnough(g.Tensors[i], w.Tensors[i], tol); err != nil {
				return fmt.Errorf("tensor %d of the sequence: %w", i, err)
			}
		}
	case *canon.OptionalValue:
		g := got.(*canon.OptionalValue)
		if (g.Value == nil) != (w.Value == nil) {
			return fmt.Errorf("one optional is empty, the other is not")
		}
		if w.Value != nil {
			return closeEnoughValue(g.Value, w.Value, tol)
		}
	}
	return nil
}
