package optimize

import (
	"fmt"
	"runtime"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// Verify runs orig and opt with the interpreter on samples sets of random
// inputs (seeded, so failures reproduce) and compares every output. An
// output matches when max|got - want| <= atol + rtol * max|want|: the error
// is judged by compare.Tolerance, the rule `check` uses: per element
// atol + rtol·|want|, plus a rounding allowance scaled to the output's
// magnitude and the model's accumulation length, since refolded weights and
// re-associated sums move rounding by a few ulps of the largest terms, not
// of each element. What the optimized graph computes exactly as the
// original does (the same nodes over the same values) is computed once;
// an optimized graph made only of such nodes needs no run at all.
func Verify(orig, opt *canon.Graph, seed uint64, samples int, rtol, atol float64) error {
	return VerifyShapes(orig, opt, nil, seed, samples, rtol, atol)
}

// VerifyShapes is Verify with concrete shapes for inputs whose dimensions
// are unknown (by input name; unknown dims default to 1).
func VerifyShapes(orig, opt *canon.Graph, shapes map[string][]int64, seed uint64, samples int, rtol, atol float64) error {
	if samples <= 0 {
		samples = 1
	}
	if len(orig.Outputs) != len(opt.Outputs) {
		return fmt.Errorf("verify: the optimized graph has %d outputs, the original %d", len(opt.Outputs), len(orig.Outputs))
	}
	for i := range orig.Outputs {
		if orig.Outputs[i].Name != opt.Outputs[i].Name {
			return fmt.Errorf("verify: output %d is %q in the optimized graph, %q in the original", i, opt.Outputs[i].Name, orig.Outputs[i].Name)
		}
	}
	// Inferred first, so the original's values are declared with their
	// dtypes as the optimized graph's are and the two compare node by node.
	if err := orig.Infer(); err != nil {
		return &UnverifiableError{fmt.Errorf("verify: original graph: %w", err)}
	}
	if hasSequences(orig) || hasSequences(opt) {
		tol := compare.Tolerance{RTol: rtol, ATol: atol, AccumLen: compare.AccumulationLength(orig)}
		return verifyValues(orig, opt, shapes, seed, samples, tol)
	}
	plan := planVerify(orig, opt)
	if plan.opt == nil {
		return nil // every output is computed by the original's own nodes
	}
	// One side at a time: the original's outputs for every sample first,
	// then the optimized graph's, so the two Programs' buffers are never
	// held together. Weights the optimizer left alone are decoded and
	// packed once, for both sides, and the optimized graph reuses the
	// values it computes as the original does (see planVerify).
	shared := interp.NewShared()
	pa, err := interp.NewWithShared(plan.orig, shared)
	if err != nil {
		return &UnverifiableError{fmt.Errorf("verify: original graph: %w", err)}
	}
	tol := compare.Tolerance{RTol: rtol, ATol: atol, AccumLen: compare.AccumulationLength(orig)}
	inputs := make([]map[string]*canon.Tensor, samples)
	wants := make([]map[string]*canon.Tensor, samples)
	for s := range samples {
		in, err := tensorfile.RandomWithin(orig.Inputs, shapes, seed+uint64(s), interp.MemoryLimit())
		if err != nil {
			return &UnverifiableError{fmt.Errorf("verify: %w", err)}
		}
		want, err := pa.Run(in)
		if err != nil {
			return &UnverifiableError{fmt.Errorf("verify: the original graph fails on random inputs (seed %d): %w", seed+uint64(s), err)}
		}
		inputs[s], wants[s] = in, want
	}
	pa.Done() // its buffers go to the optimized graph's Program
	pa = nil
	shared.Retain(plan.opt)
	// The original's weight transforms (Winograd, folded BatchNorms) are
	// as large as the weights: collected now, their memory is reused by
	// the optimized graph's instead of adding to it.
	runtime.GC()
	pb, err := interp.NewWithShared(plan.opt, shared)
	if err != nil {
		return fmt.Errorf("verify: optimized graph: %w", err)
	}
	drawn := canon.DrawnOutputs(orig)
	for s := range samples {
		in, err := plan.optInputs(inputs[s], wants[s])
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		got, err := pb.Run(in)
		if err != nil {
			return fmt.Errorf("verify: running the optimized graph: %w", err)
		}
		for i, o := range orig.Outputs {
			if drawn[i] {
				// Random draws: the same distribution, not the same values.
				if err := drawnAlike(got[o.Name], wants[s][o.Name]); err != nil {
					return fmt.Errorf("verify: output %q (random draws, seed %d): %w", o.Name, seed+uint64(s), err)
				}
				continue
			}
			if err := closeEnough(got[o.Name], wants[s][o.Name], tol); err != nil {
				return fmt.Errorf("verify: output %q (random inputs, seed %d): %w", o.Name, seed+uint64(s), err)
			}
		}
	}
	return nil
}

// closeEnough applies compare.Tolerance, the rule `check` uses too.
func closeEnough(got, want *canon.Tensor, tol compare.Tolerance) error {
	if got == nil || want == nil {
		return fmt.Errorf("missing value")
	}
	if got.DType != want.DType {
		return fmt.Errorf("dtype %s, want %s", got.DType, want.DType)
	}
	r, err := tol.Check(got, want)
	if err != nil {
		return err
	}
	if !r.OK {
		return fmt.Errorf("%d of %d elements differ beyond |got-want| <= %.3g + %.3g·|want| + %.3g (rounding allowance for %d accumulated products); max abs error %.3g; worst element %v: %.8g, want %.8g",
			r.Mismatched, r.Elements, tol.ATol, tol.RTol, r.Allowance, tol.AccumLen, r.MaxAbs, r.Worst, r.WorstGot, r.WorstWant)
	}
	return nil
}

// drawnAlike compares outputs computed from random draws by shape, dtype
// and range (compare.Drawn).
func drawnAlike(got, want *canon.Tensor) error {
	if got == nil || want == nil {
		return fmt.Errorf("missing value")
	}
	r, err := compare.Drawn(got, want)
	if err != nil {
		return err
	}
	if !r.OK {
		return fmt.Errorf("%d NaN draws where the original has none", r.Mismatched)
	}
	return nil
}

// UnverifiableError reports that the original model itself cannot be run
// on random inputs (for example an integer input used as a Reshape target),
// so the optimized model cannot be checked against it.
type UnverifiableError struct{ Err error }

func (e *UnverifiableError) Error() string { return e.Err.Error() }
func (e *UnverifiableError) Unwrap() error { return e.Err }
