package compare

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Default tolerances of `check` and of `optimize`'s verification.
const (
	DefaultRTol = 1e-4
	DefaultATol = 1e-5
)

// roundoffSafety multiplies the rounding term: float32 sums reordered by a
// different blocking (a merged or regrouped conv, another runtime's GEMM)
// differ by a few units of rounding per √(terms) in practice, and the
// difference compounds through the layers that follow.
const roundoffSafety = 4

// Tolerance is the one rule `check` and `optimize` use to decide that an
// output matches its reference. Element i passes when
//
//	|got_i - want_i| <= ATol + RTol·|want_i| + c·u·√AccumLen·max|want|
//
// where u is the unit roundoff of the output's dtype (2⁻²⁴ for float32,
// 2⁻¹¹ float16, 2⁻⁸ bfloat16, 2⁻⁵³ float64, 0 for integers and booleans),
// c = 4, and AccumLen is the number of products the model sums on the way to
// its outputs (see AccumulationLength). The last term is the rounding error
// of re-associated sums: it scales with the output's magnitude, not each
// element's, because a small element that is the sum of large terms carries
// the rounding of those terms; and with √AccumLen because rounding errors of
// a sum of n terms grow like √n.
type Tolerance struct {
	RTol, ATol float64
	AccumLen   int64
	// NoRounding drops the rounding term (element-wise rtol/atol only).
	NoRounding bool
	// Precision, when set, is the lowest precision either model computes
	// in (a float16 model with float32 inputs and outputs): u is then the
	// larger of its unit roundoff and the output dtype's.
	Precision canon.DType
}

// Roundoff is the unit roundoff of d (0 for exact types).
func Roundoff(d canon.DType) float64 {
	switch d {
	case canon.Float32:
		return 0x1p-24
	case canon.Float16:
		return 0x1p-11
	case canon.BFloat16:
		return 0x1p-8
	case canon.Float64:
		return 0x1p-53
	}
	return 0
}

// Scaled is the rounding allowance (the last term) for an output of dtype d
// whose reference has largest magnitude scale.
func (t Tolerance) Scaled(d canon.DType, scale float64) float64 {
	if t.NoRounding {
		return 0
	}
	k := max(t.AccumLen, 1)
	u := max(Roundoff(d), Roundoff(t.Precision))
	return roundoffSafety * u * math.Sqrt(float64(k)) * scale
}

// Check compares got against want under the rule; Result.Allowance holds
// the rounding term used.
func (t Tolerance) Check(got, want *canon.Tensor) (Result, error) {
	if got == nil || want == nil {
		return Result{}, fmt.Errorf("missing value")
	}
	if want.DType == canon.String {
		return Tensors(got, want, 0, 0) // text: equal or not
	}
	scale, err := maxFinite(want)
	if err != nil {
		return Result{}, err
	}
	allow := t.Scaled(want.DType, scale)
	r, err := Tensors(got, want, t.RTol, t.ATol+allow)
	r.Allowance = allow
	return r, err
}

func maxFinite(t *canon.Tensor) (float64, error) {
	v, err := t.Float64s()
	if err != nil {
		return 0, err
	}
	m := 0.0
	for _, x := range v {
		if a := math.Abs(x); a > m && !math.IsInf(a, 0) {
			m = a
		}
	}
	return m, nil
}

// AccumulationLength sums, over the nodes of g, the number of products
// each sums into one output element (each op's definition says how:
// canon.AccumulationOf): a bound on the length of the sums on any path to
// the outputs. g's value types must be inferred (g.Infer).
func AccumulationLength(g *canon.Graph) int64 {
	var total int64
	shape := func(name string) []int64 {
		if v, ok := g.Values.Lookup(name); ok {
			if s, ok := v.StaticShape(); ok {
				return s
			}
		}
		for _, t := range g.Initializers {
			if t.Name == name {
				return t.Shape
			}
		}
		return nil
	}
	for _, n := range g.Nodes {
		total += canon.AccumulationOf(n, func(i int) []int64 {
			if i < len(n.Inputs) && n.Inputs[i] != "" {
				return shape(n.Inputs[i])
			}
			return nil
		})
	}
	return total
}

// LowestPrecision returns the float dtype of g's values and weights with
// the largest unit roundoff (float16 in a model converted with --fp16
// --keep-io-types), or 0 when g holds no floats. g's value types must be
// inferred (g.Infer).
func LowestPrecision(g *canon.Graph) canon.DType {
	var lowest canon.DType
	consider := func(d canon.DType) {
		if r := Roundoff(d); r > 0 && r > Roundoff(lowest) {
			lowest = d
		}
	}
	for _, v := range g.Values.All() {
		consider(v.DType)
	}
	for _, t := range g.Initializers {
		consider(t.DType)
	}
	return lowest
}
