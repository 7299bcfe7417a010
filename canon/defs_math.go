package canon

import (
	"fmt"
	"math"
)

// The math family: the elementwise functions of one input (Abs, Neg,
// Sign, Exp, Log, Sqrt, Reciprocal, Floor, Ceil, Round, Erf and the
// trigonometric and hyperbolic functions), and the float tests IsNaN and
// IsInf with bool outputs.

func init() {
	for _, d := range mathOps() {
		Register(withReason(d, mathWithout))
	}
}

// MathFn is an elementwise math function of one input.
type MathFn uint8

const (
	MathAbs MathFn = iota
	MathNeg
	MathSign
	MathExp
	MathLog
	MathSqrt
	MathReciprocal
	MathFloor
	MathCeil
	// MathRound rounds half to even, as ONNX Round does.
	MathRound
	MathErf
	MathSin
	MathCos
	MathTan
	MathAsin
	MathAcos
	MathAtan
	MathSinh
	MathCosh
	MathAsinh
	MathAcosh
	MathAtanh
)

var mathNames = [...]string{
	MathAbs: "Abs", MathNeg: "Neg", MathSign: "Sign", MathExp: "Exp", MathLog: "Log", MathSqrt: "Sqrt",
	MathReciprocal: "Reciprocal", MathFloor: "Floor", MathCeil: "Ceil", MathRound: "Round", MathErf: "Erf",
	MathSin: "Sin", MathCos: "Cos", MathTan: "Tan", MathAsin: "Asin", MathAcos: "Acos", MathAtan: "Atan",
	MathSinh: "Sinh", MathCosh: "Cosh", MathAsinh: "Asinh", MathAcosh: "Acosh", MathAtanh: "Atanh",
}

// MathFns lists every math function, in code order.
func MathFns() []MathFn {
	out := make([]MathFn, len(mathNames))
	for i := range out {
		out[i] = MathFn(i)
	}
	return out
}

func (f MathFn) String() string {
	if int(f) < len(mathNames) {
		return mathNames[f]
	}
	return fmt.Sprintf("Math(fn %d)", f)
}

// Integers reports whether the function is defined on integer tensors
// (exactly, wrapping at the dtype's width): Abs, Neg and Sign are; the
// others take floating-point tensors only.
func (f MathFn) Integers() bool { return f == MathAbs || f == MathNeg || f == MathSign }

// Apply computes the function on one float64 value. Sign of NaN is NaN,
// as in ONNX's reference (NumPy).
func (f MathFn) Apply(x float64) float64 {
	switch f {
	case MathAbs:
		return math.Abs(x)
	case MathNeg:
		return -x
	case MathSign:
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		case x == 0:
			return 0
		}
		return x // NaN
	case MathExp:
		return math.Exp(x)
	case MathLog:
		return math.Log(x)
	case MathSqrt:
		return math.Sqrt(x)
	case MathReciprocal:
		return 1 / x
	case MathFloor:
		return math.Floor(x)
	case MathCeil:
		return math.Ceil(x)
	case MathRound:
		return math.RoundToEven(x)
	case MathErf:
		return math.Erf(x)
	case MathSin:
		return math.Sin(x)
	case MathCos:
		return math.Cos(x)
	case MathTan:
		return math.Tan(x)
	case MathAsin:
		return math.Asin(x)
	case MathAcos:
		return math.Acos(x)
	case MathAtan:
		return math.Atan(x)
	case MathSinh:
		return math.Sinh(x)
	case MathCosh:
		return math.Cosh(x)
	case MathAsinh:
		return math.Asinh(x)
	case MathAcosh:
		return math.Acosh(x)
	case MathAtanh:
		return math.Atanh(x)
	}
	return math.NaN()
}

// ApplyInt computes Abs, Neg or Sign on an integer; the caller wraps the
// result to the dtype's width (Abs of int8 -128 is -128 again). Unsigned
// values arrive as their bit pattern: uint64 values above MaxInt64 are
// negative int64s, so unsigned says to read them as unsigned.
func (f MathFn) ApplyInt(x int64, unsigned bool) int64 {
	switch f {
	case MathAbs:
		if x < 0 && !unsigned {
			return -x
		}
		return x
	case MathNeg:
		return -x
	case MathSign:
		switch {
		case x == 0:
			return 0
		case x < 0 && !unsigned:
			return -1
		}
		return 1
	}
	return x
}

// unsignedInt reports whether d is an unsigned integer type.
func unsignedInt(d DType) bool {
	return d == Uint8 || d == Uint16 || d == Uint32 || d == Uint64
}

// Math applies Fn to every element; the output has the input's dtype.
type Math struct {
	Fn MathFn
}

func (o *Math) Kind() string       { return o.Fn.String() }
func (*Math) Signature() Signature { return sig(1, inX) }

// IsNaN is true where X is NaN (bool output).
type IsNaN struct{}

func (*IsNaN) Kind() string         { return "IsNaN" }
func (*IsNaN) Signature() Signature { return sig(1, inX) }

// IsInf is true where X is +inf (when DetectPositive) or -inf (when
// DetectNegative); bool output. ONNX's defaults detect both.
type IsInf struct {
	DetectPositive bool
	DetectNegative bool
}

func (*IsInf) Kind() string         { return "IsInf" }
func (*IsInf) Signature() Signature { return sig(1, inX) }

// ---- definitions ----

// mathCost is each function's per-element work in multiply-add
// equivalents: sign flips and roundings are one, transcendental functions
// several.
var mathCost = [...]float64{
	MathAbs: 1, MathNeg: 1, MathSign: 1, MathExp: 4, MathLog: 4, MathSqrt: 2, MathReciprocal: 1,
	MathFloor: 1, MathCeil: 1, MathRound: 1, MathErf: 6, MathSin: 5, MathCos: 5, MathTan: 6,
	MathAsin: 6, MathAcos: 6, MathAtan: 6, MathSinh: 5, MathCosh: 5, MathAsinh: 6, MathAcosh: 6, MathAtanh: 6,
}

var mathSummary = [...]string{
	MathAbs: "|x| (integers wrap: Abs of int8 -128 is -128)", MathNeg: "-x (signed integers wrap)",
	MathSign: "-1, 0 or 1 by the sign of x (NaN stays NaN)", MathExp: "e^x", MathLog: "natural logarithm",
	MathSqrt: "square root", MathReciprocal: "1/x", MathFloor: "round toward -inf", MathCeil: "round toward +inf",
	MathRound: "round to nearest, halves to even", MathErf: "Gauss error function",
	MathSin: "sine", MathCos: "cosine", MathTan: "tangent", MathAsin: "arcsine", MathAcos: "arccosine",
	MathAtan: "arctangent", MathSinh: "hyperbolic sine", MathCosh: "hyperbolic cosine",
	MathAsinh: "inverse hyperbolic sine", MathAcosh: "inverse hyperbolic cosine", MathAtanh: "inverse hyperbolic tangent",
}

// mathExampleValues are constant inputs for the functions whose domain
// the [-2, 2] test inputs leave (Log, Sqrt, Asin...) or whose interesting
// points they miss (Round's halves, Tan's poles): nil means a graph input.
func mathExampleValues(f MathFn) []float32 {
	switch f {
	case MathLog, MathSqrt:
		return []float32{0.01, 0.25, 0.5, 1, 2, 3.5, 10, 100, 1e-3, 7, 0.75, 42}
	case MathReciprocal:
		return []float32{-3, -0.5, -0.01, 0.01, 0.5, 1, 2, 7, -100, 1e-3, 0.3, -2.5}
	case MathRound:
		// Halves round to even; 0.49999997 must not round up.
		return []float32{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.49999997, 2.3, -2.7, 3.5, 1e7 + 1}
	case MathTan:
		return []float32{-1.5, -1, -0.5, 0, 0.5, 1, 1.5, 1.57, -1.57, 3, -3, 0.1}
	case MathAsin, MathAcos, MathAtanh:
		return []float32{-0.99, -0.75, -0.5, -0.25, 0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, -0.1}
	case MathAcosh:
		return []float32{1, 1.01, 1.5, 2, 3, 5, 10, 100, 1.25, 4, 7.5, 20}
	}
	return nil
}

func mathExample(f MathFn) Example {
	if v := mathExampleValues(f); v != nil {
		shape := []int64{3, 4}
		return Example{Op: &Math{Fn: f}, Inputs: []ExampleInput{{DType: Float32, Shape: shape, Const: NewFloat32Tensor("", shape, v)}}}
	}
	return Example{Op: &Math{Fn: f}, Inputs: []ExampleInput{exampleX}}
}

// specialValues are float inputs with NaNs and infinities for IsNaN and
// IsInf's examples.
func specialValues() ExampleInput {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	shape := []int64{2, 4}
	v := []float32{inf, -inf, nan, 0, -1.5, 3e38, -nan, 7}
	return ExampleInput{DType: Float32, Shape: shape, Const: NewFloat32Tensor("", shape, v)}
}

func mathOps() []*OpDef {
	defs := []*OpDef{
		{
			Kind: "IsNaN", Summary: "true where x is NaN; bool output",
			New:    func() Op { return &IsNaN{} },
			Traits: unaryElementwise(1),
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.floatTest("IsNaN")) },
			Example: func() Example {
				return Example{Op: &IsNaN{}, Inputs: []ExampleInput{specialValues()}}
			},
		},
		{
			Kind: "IsInf", Summary: "true where x is +inf and/or -inf (detect_positive, detect_negative); bool output",
			New:    func() Op { return &IsInf{DetectPositive: true, DetectNegative: true} },
			Traits: unaryElementwise(1),
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.floatTest("IsInf")) },
			Example: func() Example {
				return Example{Op: &IsInf{DetectNegative: true}, Inputs: []ExampleInput{specialValues()}}
			},
		},
	}
	for _, fn := range MathFns() {
		defs = append(defs, &OpDef{
			Kind: fn.String(), Summary: mathSummary[fn],
			New:    func() Op { return &Math{Fn: fn} },
			Traits: unaryElementwise(mathCost[fn]),
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.math(c.n.Op.(*Math))) },
			Check: func(c *CheckCtx) error {
				if f := c.N.Op.(*Math).Fn; int(f) >= len(mathNames) {
					return c.Errorf("unknown math function code %d", f)
				}
				return nil
			},
			Example: func() Example { return mathExample(fn) },
		})
	}
	return defs
}

// ---- inference ----

func (c *InferCtx) math(op *Math) (ValueInfo, error) {
	x := c.in[0]
	dt := x.DType
	switch {
	case dt == Undefined || dt.IsFloat():
	case dt.IsInt() && op.Fn.Integers():
		if op.Fn == MathNeg && unsignedInt(dt) {
			return ValueInfo{}, c.errf("input %q is %s: Neg takes floating-point and signed integer tensors (as ONNX defines it); Cast it to a signed type first", c.n.Inputs[0], dt)
		}
	case dt.IsInt():
		return ValueInfo{}, c.errf("input %q is %s: %s takes floating-point tensors only; Cast it to float32 first", c.n.Inputs[0], dt, op.Fn)
	default:
		return ValueInfo{}, c.errf("input %q is %s: %s takes numeric tensors only", c.n.Inputs[0], dt, op.Fn)
	}
	v := ValueInfo{DType: dt, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}
	// Shape arithmetic negates sizes (PyTorch's exports of flips and
	// negative slices): fold small integer constants.
	if k := constOf(x); k != nil && op.Fn.Integers() {
		if vals, err := k.Int64s(); err == nil {
			res := make([]int64, len(vals))
			for i, a := range vals {
				res[i] = op.Fn.ApplyInt(a, unsignedInt(dt))
			}
			v.Const = makeIntConst(c.outName(0), dt, k.Shape, res)
		}
	}
	return v, nil
}

// floatTest infers IsNaN and IsInf: a float input, a bool output.
func (c *InferCtx) floatTest(kind string) (ValueInfo, error) {
	x := c.in[0]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return ValueInfo{}, c.errf("input %q is %s: %s takes floating-point tensors only", c.n.Inputs[0], dt, kind)
	}
	return ValueInfo{DType: Bool, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}, nil
}

// mathWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var mathWithout = Without{Accumulation: SumsNothing, RemapAxes: NoRemapYet, Decompose: Primitive, Noop: NoNoopSetting}
