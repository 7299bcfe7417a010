package canon

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The activation family: LogSoftmax, Hardmax, Celu, Mish, ThresholdedRelu,
// Shrink and Einsum. LogSoftmax and Hardmax have ONNX opset-13 semantics
// (one axis); the older 2-D coercion is resolved by the importer, as for
// Softmax.

func init() {
	for _, d := range activationOps() {
		Register(withReason(d, activationWithout))
	}
}

// ---- typed attributes ----

// LogSoftmax is log(softmax(x)) along Axis.
type LogSoftmax struct {
	Axis int64
}

func (*LogSoftmax) Kind() string         { return "LogSoftmax" }
func (*LogSoftmax) Signature() Signature { return sig(1, inX) }

// Hardmax is 1 at the first maximum along Axis and 0 elsewhere.
type Hardmax struct {
	Axis int64
}

func (*Hardmax) Kind() string         { return "Hardmax" }
func (*Hardmax) Signature() Signature { return sig(1, inX) }

// Celu is max(0, x) + min(0, Alpha·(exp(x/Alpha) - 1)).
type Celu struct {
	Alpha float32
}

func (*Celu) Kind() string         { return "Celu" }
func (*Celu) Signature() Signature { return sig(1, inX) }

// Mish is x·tanh(softplus(x)).
type Mish struct{}

func (*Mish) Kind() string         { return "Mish" }
func (*Mish) Signature() Signature { return sig(1, inX) }

// ThresholdedRelu is x for x > Alpha, 0 otherwise.
type ThresholdedRelu struct {
	Alpha float32
}

func (*ThresholdedRelu) Kind() string         { return "ThresholdedRelu" }
func (*ThresholdedRelu) Signature() Signature { return sig(1, inX) }

// Shrink is x+Bias for x < -Lambd, x-Bias for x > Lambd, 0 otherwise. On
// integer data the result is truncated to the data's type, as ONNX
// Runtime's static_cast does.
type Shrink struct {
	Bias  float32
	Lambd float32
}

func (*Shrink) Kind() string         { return "Shrink" }
func (*Shrink) Signature() Signature { return sig(1, inX) }

// Einsum is an Einstein summation over its inputs. Equation is always in
// explicit form ("ij,jk->ik"), without spaces: the importer resolves
// ONNX's implicit output (NormalizeEinsum).
type Einsum struct {
	Equation string
}

func (*Einsum) Kind() string { return "Einsum" }
func (*Einsum) Signature() Signature {
	return sig(1, InputSpec{Name: "Inputs", Variadic: true})
}

// ---- definitions ----

func activationOps() []*OpDef {
	return []*OpDef{
		{
			Kind: "LogSoftmax", Summary: "log of the softmax along one axis (opset-13 semantics)",
			HalfUnsafe: "exponentials and their sum exceed float16's range and precision",
			New:        func() Op { return &LogSoftmax{Axis: -1} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				return one(c.alongAxis(c.n.Op.(*LogSoftmax).Axis))
			},
			Example: func() Example {
				return Example{Op: &LogSoftmax{Axis: 1}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "Hardmax", Summary: "1 at the first maximum along one axis, 0 elsewhere (opset-13 semantics)",
			New: func() Op { return &Hardmax{Axis: -1} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				return one(c.alongAxis(c.n.Op.(*Hardmax).Axis))
			},
			Example: func() Example {
				return Example{Op: &Hardmax{Axis: 2}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "Celu", Summary: "max(0, x) + min(0, alpha·(exp(x/alpha)-1))",
			Decompose: celuExpand,
			New:       func() Op { return &Celu{Alpha: 1} }, Traits: unaryElementwise(5), Infer: inferFloatSame,
			Check: func(c *CheckCtx) error {
				if a := c.N.Op.(*Celu).Alpha; a == 0 || math.IsNaN(float64(a)) || math.IsInf(float64(a), 0) {
					return c.Errorf("Alpha is %g, must be finite and non-zero", a)
				}
				return nil
			},
			Example: unaryExample(&Celu{Alpha: 0.8}),
		},
		{
			Kind: "Mish", Summary: "x·tanh(softplus(x))",
			Decompose: mishExpand,
			New:       func() Op { return &Mish{} }, Traits: unaryElementwise(10), Infer: inferFloatSame,
			Example: unaryExample(&Mish{}),
		},
		{
			Kind: "ThresholdedRelu", Summary: "x for x > alpha, 0 otherwise",
			New: func() Op { return &ThresholdedRelu{Alpha: 1} }, Traits: unaryElementwise(1), Infer: inferFloatSame,
			Example: unaryExample(&ThresholdedRelu{Alpha: 0.3}),
		},
		{
			Kind: "Shrink", Summary: "x+bias below -lambd, x-bias above lambd, 0 between (any numeric type)",
			New: func() Op { return &Shrink{Lambd: 0.5} }, Traits: unaryElementwise(2),
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				if dt := c.in[0].DType; dt == Bool {
					return nil, c.errf("input X %q is bool, want a numeric tensor", c.n.Inputs[0])
				}
				return c.SameAsInput(0)
			},
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Shrink)
				if math.IsNaN(float64(op.Lambd)) || math.IsNaN(float64(op.Bias)) {
					return c.Errorf("Lambd %g and Bias %g must be numbers", op.Lambd, op.Bias)
				}
				return nil
			},
			Example: unaryExample(&Shrink{Lambd: 0.4, Bias: 0.15}),
		},
		{
			Kind: "Einsum", Summary: "Einstein summation: explicit equation with diagonals, ellipsis broadcasting and sums",
			AccumulationLength: einsumSum,
			New:                func() Op { return &Einsum{} },
			Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.einsum(c.n.Op.(*Einsum))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Einsum)
				e, err := ParseEinsum(op.Equation)
				if err != nil {
					return c.Errorf("%v", err)
				}
				if !e.Explicit {
					return c.Errorf("equation %q has no output (\"->\"); canonical Einsum equations are explicit (NormalizeEinsum)", op.Equation)
				}
				if len(e.Terms) != len(c.N.Inputs) {
					return c.Errorf("equation %q has %d operands, the node %d inputs", op.Equation, len(e.Terms), len(c.N.Inputs))
				}
				return nil
			},
			Example: func() Example {
				// An ellipsis, a contraction (j), a diagonal (kk) and a
				// transposed output.
				return Example{Op: &Einsum{Equation: "...ij,jkk->...ki"},
					Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3, 4}}, exampleF32(4, 5, 5)}}
			},
		},
	}
}

// inferFloatSame is the inference of float-only ops whose output is input
// 0's type.
func inferFloatSame(c *InferCtx) ([]ValueInfo, error) {
	if dt := c.in[0].DType; dt != Undefined && !dt.IsFloat() {
		return nil, c.errf("input X %q is %s, want a floating-point tensor", c.n.Inputs[0], dt)
	}
	return c.SameAsInput(0)
}

// alongAxis infers LogSoftmax and Hardmax: float input, axis in range.
func (c *InferCtx) alongAxis(axis int64) (ValueInfo, error) {
	x := c.in[0]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return ValueInfo{}, c.errf("input X %q is %s, want a floating-point tensor", c.n.Inputs[0], dt)
	}
	if x.RankKnown {
		if _, ok := normAxis(axis, len(x.Shape)); !ok {
			return ValueInfo{}, c.errf("axis %d is out of range for input X of shape %s", axis, fmtShape(x))
		}
	}
	return c.elementwise()
}

// ---- Einsum equations ----

// EinsumTerm is one side of an equation: its letters, and where the
// ellipsis stands among them (-1: none).
type EinsumTerm struct {
	Letters  []byte
	Ellipsis int
}

// EinsumEquation is a parsed equation. Output is meaningful when Explicit.
type EinsumEquation struct {
	Terms    []EinsumTerm
	Output   EinsumTerm
	Explicit bool
}

// ParseEinsum reads an ONNX/NumPy einsum equation: comma-separated terms of
// letters with at most one "..." each, optionally "->" and the output term.
// Spaces are ignored.
func ParseEinsum(eq string) (*EinsumEquation, error) {
	s := strings.Join(strings.Fields(eq), "")
	lhs, rhs, explicit := strings.Cut(s, "->")
	if strings.Contains(rhs, "->") {
		return nil, fmt.Errorf("einsum equation %q has more than one \"->\"", eq)
	}
	e := &EinsumEquation{Explicit: explicit}
	for _, t := range strings.Split(lhs, ",") {
		term, err := parseEinsumTerm(t, eq)
		if err != nil {
			return nil, err
		}
		e.Terms = append(e.Terms, term)
	}
	if !explicit {
		return e, nil
	}
	out, err := parseEinsumTerm(rhs, eq)
	if err != nil {
		return nil, err
	}
	hasEllipsis := false
	for _, t := range e.Terms {
		hasEllipsis = hasEllipsis || t.Ellipsis >= 0
	}
	if out.Ellipsis >= 0 && !hasEllipsis {
		return nil, fmt.Errorf("einsum equation %q has \"...\" in its output but in no operand", eq)
	}
	for i, l := range out.Letters {
		if slices.Contains(out.Letters[:i], l) {
			return nil, fmt.Errorf("einsum equation %q repeats %q in its output", eq, l)
		}
		found := false
		for _, t := range e.Terms {
			found = found || slices.Contains(t.Letters, l)
		}
		if !found {
			return nil, fmt.Errorf("einsum equation %q: output letter %q is in no operand", eq, l)
		}
	}
	e.Output = out
	return e, nil
}

func parseEinsumTerm(t, eq string) (EinsumTerm, error) {
	term := EinsumTerm{Ellipsis: -1}
	for i := 0; i < len(t); i++ {
		ch := t[i]
		switch {
		case ch == '.':
			if !strings.HasPrefix(t[i:], "...") || term.Ellipsis >= 0 {
				return term, fmt.Errorf("einsum equation %q: term %q has a stray '.' or more than one \"...\"", eq, t)
			}
			term.Ellipsis = len(term.Letters)
			i += 2
		case ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
			term.Letters = append(term.Letters, ch)
		default:
			return term, fmt.Errorf("einsum equation %q: %q is not a letter", eq, ch)
		}
	}
	return term, nil
}

// String writes the equation back (explicit form when Explicit).
func (e *EinsumEquation) String() string {
	parts := make([]string, len(e.Terms))
	for i, t := range e.Terms {
		parts[i] = t.String()
	}
	s := strings.Join(parts, ",")
	if e.Explicit {
		s += "->" + e.Output.String()
	}
	return s
}

func (t EinsumTerm) String() string {
	if t.Ellipsis < 0 {
		return string(t.Letters)
	}
	return string(t.Letters[:t.Ellipsis]) + "..." + string(t.Letters[t.Ellipsis:])
}

// NormalizeEinsum returns eq in explicit form without spaces. An implicit
// output is, as in ONNX and NumPy, the ellipsis (when any operand has
// one) followed by the letters that occur exactly once, in ASCII order.
func NormalizeEinsum(eq string) (string, error) {
	e, err := ParseEinsum(eq)
	if err != nil {
		return "", err
	}
	if !e.Explicit {
		count := map[byte]int{}
		out := EinsumTerm{Ellipsis: -1}
		for _, t := range e.Terms {
			for _, l := range t.Letters {
				count[l]++
			}
			if t.Ellipsis >= 0 {
				out.Ellipsis = 0
			}
		}
		for l, n := range count {
			if n == 1 {
				out.Letters = append(out.Letters, l)
			}
		}
		slices.Sort(out.Letters)
		e.Output, e.Explicit = out, true
	}
	return e.String(), nil
}

// EinsumPlan is an equation bound to operand ranks: every axis of every
// operand and of the output is a label, letters first, then the broadcast
// (ellipsis) axes, right-aligned as NumPy broadcasting does.
type EinsumPlan struct {
	// Labels is the number of labels; Ellipsis the number of broadcast axes
	// (labels Labels-Ellipsis .. Labels-1).
	Labels, Ellipsis int
	// Operands holds each operand's label per axis; Output the output's.
	Operands [][]int
	Output   []int
	// letters are the letters of labels 0..Labels-Ellipsis-1.
	letters []byte
}

// Bind assigns labels for operands of the given ranks.
func (e *EinsumEquation) Bind(ranks []int) (*EinsumPlan, error) {
	if len(ranks) != len(e.Terms) {
		return nil, fmt.Errorf("einsum equation %q has %d operands, got %d inputs", e.String(), len(e.Terms), len(ranks))
	}
	ids := map[byte]int{}
	var letters []byte
	for _, t := range e.Terms {
		for _, l := range t.Letters {
			if _, ok := ids[l]; !ok {
				ids[l] = len(letters)
				letters = append(letters, l)
			}
		}
	}
	ell := 0
	for i, t := range e.Terms {
		n := ranks[i] - len(t.Letters)
		switch {
		case t.Ellipsis < 0 && n != 0:
			return nil, fmt.Errorf("operand %d has rank %d, but its term %q has %d letters", i, ranks[i], t.String(), len(t.Letters))
		case n < 0:
			return nil, fmt.Errorf("operand %d has rank %d, fewer than the %d letters of its term %q", i, ranks[i], len(t.Letters), t.String())
		}
		ell = max(ell, n)
	}
	L := len(letters)
	p := &EinsumPlan{Labels: L + ell, Ellipsis: ell, letters: letters}
	expand := func(t EinsumTerm, n int) []int {
		out := make([]int, 0, len(t.Letters)+n)
		for k, l := range t.Letters {
			if k == t.Ellipsis {
				for j := ell - n; j < ell; j++ {
					out = append(out, L+j)
				}
			}
			out = append(out, ids[l])
		}
		if t.Ellipsis == len(t.Letters) {
			for j := ell - n; j < ell; j++ {
				out = append(out, L+j)
			}
		}
		return out
	}
	for i, t := range e.Terms {
		p.Operands = append(p.Operands, expand(t, ranks[i]-len(t.Letters)))
	}
	if e.Output.Ellipsis >= 0 {
		p.Output = expand(e.Output, ell)
	} else {
		p.Output = expand(e.Output, 0)
	}
	return p, nil
}

// Sizes gives every label's size from the operand shapes: a letter must
// have one size wherever it occurs; broadcast axes follow NumPy (1
// stretches). Unknown sizes are -1.
func (p *EinsumPlan) Sizes(shapes [][]int64) ([]int64, error) {
	size := make([]int64, p.Labels)
	for i := range size {
		size[i] = -2 // not seen
	}
	broadcast := p.Labels - p.Ellipsis
	for i, labels := range p.Operands {
		for a, l := range labels {
			d, s, bc := shapes[i][a], size[l], l >= broadcast
			switch {
			case s == -2:
				size[l] = d
			case d < 0:
				if bc && s == 1 {
					size[l] = -1 // the unknown size may stretch the 1
				}
			case s == d || bc && d == 1:
			case s == -1 || bc && s == 1:
				size[l] = d
			default:
				return nil, fmt.Errorf("operand %d has size %d on axis %d, where another operand has %d for the same %s", i, d, a, s, p.labelName(l))
			}
		}
	}
	for i, s := range size {
		if s == -2 {
			size[i] = 1 // a broadcast axis no operand of larger rank has
		}
	}
	return size, nil
}

func (p *EinsumPlan) labelName(l int) string {
	if l >= p.Labels-p.Ellipsis {
		return fmt.Sprintf("broadcast axis %d", l-(p.Labels-p.Ellipsis))
	}
	return fmt.Sprintf("letter %q", p.letters[l])
}

func (c *InferCtx) einsum(op *Einsum) (ValueInfo, error) {
	e, err := ParseEinsum(op.Equation)
	if err != nil {
		return ValueInfo{}, c.errf("%v", err)
	}
	dt := c.in[0].DType
	for i := range c.in {
		if d := c.in[i].DType; d == Bool {
			return ValueInfo{}, c.errf("input %q is bool, want numbers", c.n.Inputs[i])
		}
		if i > 0 {
			if err := c.sameDType(0, i); err != nil {
				return ValueInfo{}, err
			}
		}
	}
	ranks := make([]int, len(c.in))
	shapes := make([][]int64, len(c.in))
	for i, v := range c.in {
		if !v.RankKnown {
			if !e.Explicit || e.Output.Ellipsis >= 0 {
				return ValueInfo{DType: dt}, nil
			}
			// The output has only letters: its rank is known.
			return shaped(dt, unknownDims(len(e.Output.Letters))), nil
		}
		ranks[i] = len(v.Shape)
		for _, d := range v.Shape {
			shapes[i] = append(shapes[i], d.Size)
		}
	}
	if !e.Explicit {
		norm, err := NormalizeEinsum(op.Equation)
		if err != nil {
			return ValueInfo{}, c.errf("%v", err)
		}
		e, _ = ParseEinsum(norm)
	}
	p, err := e.Bind(ranks)
	if err != nil {
		return ValueInfo{}, c.errf("equation %q: %v", op.Equation, err)
	}
	sizes, err := p.Sizes(shapes)
	if err != nil {
		return ValueInfo{}, c.errf("equation %q: %v", op.Equation, err)
	}
	out := make([]Dim, len(p.Output))
	for k, l := range p.Output {
		out[k] = Dim{Size: sizes[l]}
		if sizes[l] < 0 {
			out[k] = c.einsumParamDim(p, l)
		}
	}
	return shaped(dt, out), nil
}

// einsumParamDim is the symbolic dim of an unknown label: the input dim it
// comes from, when that one is named.
func (c *InferCtx) einsumParamDim(p *EinsumPlan, l int) Dim {
	for i, labels := range p.Operands {
		for a, m := range labels {
			if m == l {
				if d := c.in[i].Shape[a]; !d.Known() && d.Param != "" {
					return d
				}
			}
		}
	}
	return Dim{Size: -1}
}

// activationWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var activationWithout = Without{Accumulation: SumsNoProducts, RemapAxes: NoRemapYet, Decompose: Primitive, Noop: NoNoopSetting}
