// Package compare measures how far one tensor is from a reference, the way
// `check` and the tests report it: max absolute and relative error, the
// worst element, and whether all elements satisfy |a-b| <= atol + rtol*|b|.
package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// Result describes the difference between a tensor and its reference.
type Result struct {
	MaxAbs float64 `json:"max_abs_error"`
	// MaxRel is the largest |a-b| / |b| over elements with b != 0.
	MaxRel float64 `json:"max_rel_error"`
	// Worst is the element with the largest error relative to its
	// tolerance (atol + rtol*|want|).
	Worst      []int64 `json:"worst_index"`
	WorstGot   float64 `json:"worst_got"`
	WorstWant  float64 `json:"worst_want"`
	Mismatched int64   `json:"mismatched"`
	Elements   int64   `json:"elements"`
	OK         bool    `json:"ok"`

	// Allowance is the rounding term of Tolerance added to atol (0 when
	// Tensors is called directly).
	Allowance float64 `json:"rounding_allowance,omitempty"`

	// Drawn is set when the output is computed from random draws and was
	// compared by shape, dtype and range only (see Drawn).
	Drawn *DrawnRange `json:"drawn,omitempty"`

	// Text is set for string tensors, compared byte for byte (MaxAbs is
	// then 0 or +Inf and MaxRel unused).
	Text *TextDiff `json:"text,omitempty"`

	// For a sequence or optional output (see Tolerance.CheckValue): Where
	// names the tensor inside it that Worst indexes, and Structure says how
	// the two differ before any element does (their lengths, a tensor's
	// shape or dtype, an optional's presence); empty when they agree.
	Where     string `json:"where,omitempty"`
	Structure string `json:"structure,omitempty"`
}

// TextDiff describes a string comparison: the first differing element's
// texts (clipped to 60 bytes), empty when every element is equal.
type TextDiff struct {
	WantFirst string `json:"want_first,omitempty"`
	GotFirst  string `json:"got_first,omitempty"`
}

// Tensors compares got against want. Shapes must be equal; NaN matches NaN.
func Tensors(got, want *canon.Tensor, rtol, atol float64) (Result, error) {
	if !slices.Equal(got.Shape, want.Shape) {
		return Result{}, fmt.Errorf("shape %v differs from the reference shape %v", got.Shape, want.Shape)
	}
	if got.DType == canon.String || want.DType == canon.String {
		return stringResult(got, want)
	}
	a, err := got.Float64s()
	if err != nil {
		return Result{}, err
	}
	b, err := want.Float64s()
	if err != nil {
		return Result{}, err
	}
	ia, ib, err := exactIntegers(got, want)
	if err != nil {
		return Result{}, err
	}
	r := Result{Elements: int64(len(a)), OK: true}
	// The worst element is the one with the largest error relative to its
	// own tolerance, so it is the first to fail as tolerances tighten.
	worst, worstScore := -1, math.Inf(-1)
	for i := range a {
		x, y := a[i], b[i]
		if math.IsNaN(x) && math.IsNaN(y) {
			continue
		}
		d := math.Abs(x - y)
		if ia != nil {
			// Integers beyond 2⁵³ that differ can round to one float64.
			d = intDistance(ia[i], got.DType == canon.Uint64, ib[i], want.DType == canon.Uint64)
		}
		if math.IsNaN(d) || (math.IsInf(x, 0) && x == y) {
			if x == y {
				continue
			}
			d = math.Inf(1)
		}
		if d > r.MaxAbs {
			r.MaxAbs = d
		}
		if y != 0 {
			if rel := d / math.Abs(y); rel > r.MaxRel {
				r.MaxRel = rel
			}
		}
		tol := atol + rtol*math.Abs(y)
		if math.IsInf(y, 0) || math.IsNaN(y) {
			// An unmatched non-finite reference (the equal cases were
			// skipped above) must fail: rtol*|y| would be Inf or NaN.
			tol = atol
		}
		if d > tol {
			r.Mismatched++
			r.OK = false
		}
		score := d
		if tol > 0 {
			score = d / tol
		}
		if score > worstScore {
			worst, worstScore = i, score
		}
	}
	if worst >= 0 {
		r.Worst = unravel(int64(worst), got.Shape)
		r.WorstGot, r.WorstWant = a[worst], b[worst]
	}
	return r, nil
}

// exactIntegers returns both tensors' values as int64 (Uint64 by its bits)
// when both hold integers or booleans, so that they compare exactly; nil
// otherwise.
func exactIntegers(got, want *canon.Tensor) (a, b []int64, err error) {
	integral := func(d canon.DType) bool { return d.IsInt() || d == canon.Bool }
	if !integral(got.DType) || !integral(want.DType) {
		return nil, nil, nil
	}
	if a, err = got.Int64s(); err != nil {
		return nil, nil, err
	}
	if b, err = want.Int64s(); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// intDistance is |x - y| for two integers, each an int64 or (unsigned) a
// uint64 stored by its bits; it is zero only when they are equal.
func intDistance(x int64, xUnsigned bool, y int64, yUnsigned bool) float64 {
	xNeg, yNeg := !xUnsigned && x < 0, !yUnsigned && y < 0
	switch {
	case xNeg == yNeg:
		// Same sign: the difference of the two's-complement bit patterns
		// is exact in uint64.
		if (xNeg && x >= y) || (!xNeg && uint64(x) >= uint64(y)) {
			return float64(uint64(x) - uint64(y))
		}
		return float64(uint64(y) - uint64(x))
	case xNeg:
		return float64(uint64(y)) + float64(-uint64(x))
	default:
		return float64(uint64(x)) + float64(-uint64(y))
	}
}

// RelativeToMax is max|a-b| / max|b|, a scale-aware error for whole outputs
// (used for the "relative error 1e-4" criterion on model outputs).
func RelativeToMax(got, want *canon.Tensor) (float64, error) {
	if !slices.Equal(got.Shape, want.Shape) {
		return 0, fmt.Errorf("shape %v differs from the reference shape %v", got.Shape, want.Shape)
	}
	a, err := got.Float64s()
	if err != nil {
		return 0, err
	}
	b, err := want.Float64s()
	if err != nil {
		return 0, err
	}
	var maxDiff, maxRef float64
	for i := range a {
		maxDiff = math.Max(maxDiff, math.Abs(a[i]-b[i]))
		maxRef = math.Max(maxRef, math.Abs(b[i]))
	}
	if maxRef == 0 {
		return maxDiff, nil
	}
	return maxDiff / maxRef, nil
}

func unravel(i int64, shape []int64) []int64 {
	idx := make([]int64, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = i % shape[k]
			i /= shape[k]
		}
	}
	return idx
}

// ONNXBackend applies ONNX's backend-test rule to one output: equal shape
// and dtype, |a-b| <= 1e-5 + 1e-3·|b| for floats (NaN matches NaN), exact
// equality for integers and booleans.
func ONNXBackend(got, want *canon.Tensor) error {
	if got == nil {
		return fmt.Errorf("missing")
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	if got.DType != want.DType {
		return fmt.Errorf("dtype %s, want %s", got.DType, want.DType)
	}
	if want.DType == canon.String {
		return sameStrings(got, want)
	}
	if !want.DType.IsFloat() {
		if string(got.Data) != string(want.Data) {
			return fmt.Errorf("values differ")
		}
		return nil
	}
	g, err := got.Float64s()
	if err != nil {
		return err
	}
	w, err := want.Float64s()
	if err != nil {
		return err
	}
	for i := range w {
		if g[i] == w[i] || (math.IsNaN(g[i]) && math.IsNaN(w[i])) {
			continue
		}
		if !(math.Abs(g[i]-w[i]) <= 1e-5+1e-3*math.Abs(w[i])) {
			return fmt.Errorf("element %d = %v, want %v", i, g[i], w[i])
		}
	}
	return nil
}
