package torchscript

import (
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Complex tensors. canon has no complex dtype: a complex tensor of shape S
// is held, as ONNX's DFT holds it, as a float tensor of shape S + (2,)
// whose last axis is (real, imaginary), so torch.view_as_real is the
// identity on it and a complex graph output is written as view_as_real
// would return it. The builder marks such values; an operator that does
// not know the representation must not see one (it would read the pairs
// as real numbers), so every call with a complex argument is either one
// of complexHandlers, an operator that reads complex values itself
// (complexReaders), or refused.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.view_as_real":    entry(opViewAsReal, "Identity"),
		"torch.view_as_complex": entry(opViewAsComplex, "Identity"),
		"torch.complex":         entry(opComplex, "Unsqueeze", "Concat"),
		"torch.polar":           entry(opPolar, "Cos", "Sin", "Mul", "Unsqueeze", "Concat"),
	})
	// Operators that are also read for real tensors elsewhere; on complex
	// values complexCall answers them before their handler runs. Added
	// here only when no other file maps them.
	for name, e := range map[string]opEntry{
		"torch.real":          entry(opRealPart),
		"torch.imag":          entry(opImagOfReal),
		"torch.conj":          entry(opRealPart),
		"torch.conj_physical": entry(opRealPart),
		"torch._conj":         entry(opRealPart),
		"torch.resolve_conj":  entry(opRealPart),
		"torch.resolve_neg":   entry(opRealPart),
	} {
		if _, taken := opTable[name]; !taken {
			opTable[name] = e
		}
	}
}

// complexHandlers read operators whose argument is complex.
var complexHandlers = map[string]opHandler{
	"torch.real":          complexPart(0),
	"torch.imag":          complexPart(1),
	"torch.abs":           opComplexAbs,
	"torch.conj":          opConj,
	"torch.conj_physical": opConj,
	"torch._conj":         opConj,
	"torch.resolve_conj":  opComplexSame,
	"torch.resolve_neg":   opComplexSame,
}

// complexReaders are operators whose handlers read complex arguments
// themselves.
var complexReaders = map[string]bool{"torch.view_as_real": true, "torch.istft": true}

func (b *builder) isComplex(t *tensorVal) bool { return t != nil && t.name != "" && b.complex[t.name] }

func (b *builder) markComplex(t *tensorVal) *tensorVal {
	if b.complex == nil {
		b.complex = map[string]bool{}
	}
	b.complex[t.name] = true
	return t
}

// complexArg reports whether any argument (in lists and tuples too) is a
// complex tensor.
func (c *opCall) complexArg() bool {
	var walk func(v value) bool
	walk = func(v value) bool {
		switch x := v.(type) {
		case *tensorVal:
			return c.b().isComplex(x)
		case *listVal:
			for _, it := range x.items {
				if walk(it) {
					return true
				}
			}
		case *tupleVal:
			for _, it := range x.items {
				if walk(it) {
					return true
				}
			}
		}
		return false
	}
	for _, a := range c.args {
		if walk(a) {
			return true
		}
	}
	for _, a := range c.kwargs {
		if walk(a) {
			return true
		}
	}
	return false
}

// complexCall answers a call with a complex argument: done is false when
// the operator's own handler should run.
func (c *opCall) complexCall() (v value, done bool, err error) {
	if !c.complexArg() || complexReaders[c.name] {
		return nil, false, nil
	}
	if h, ok := complexHandlers[c.name]; ok {
		v, err := h(c)
		return v, true, err
	}
	var names []string
	for n := range complexHandlers {
		names = append(names, strings.TrimPrefix(n, "torch."))
	}
	for n := range complexReaders {
		names = append(names, strings.TrimPrefix(n, "torch."))
	}
	sort.Strings(names)
	return nil, true, c.errf("does not read complex tensors: they are held as (real, imaginary) pairs in a last axis of 2, which this operator would take for real numbers (complex values are read by %s; take torch.view_as_real first to work on the pairs)", strings.Join(names, ", "))
}

// opViewAsReal: the pairs are the representation; an Identity gives the
// real view a name of its own, not marked complex.
func opViewAsReal(c *opCall) (value, error) {
	x, err := c.bindInput("self")
	if err != nil {
		return nil, err
	}
	if !c.b().isComplex(x) {
		return nil, c.errf("takes a complex tensor, got a real one")
	}
	return c.b().emit1(c.scope, &canon.Identity{}, x)
}

// opViewAsComplex reads (..., 2) pairs as complex values.
func opViewAsComplex(c *opCall) (value, error) {
	x, err := c.bindInput("self")
	if err != nil {
		return nil, err
	}
	vi := c.b().info(x)
	if !vi.RankKnown || len(vi.Shape) == 0 || vi.Shape[len(vi.Shape)-1].Size != 2 {
		return nil, c.errf("takes a tensor whose last axis has size 2")
	}
	if !vi.DType.IsFloat() {
		return nil, c.errf("takes a floating-point tensor, got %s", vi.DType)
	}
	out, err := c.b().emit1(c.scope, &canon.Identity{}, x)
	if err != nil {
		return nil, err
	}
	return c.b().markComplex(out), nil
}

// pairOf stacks real and imaginary parts (same shape) into a complex value.
func (c *opCall) pairOf(re, im *tensorVal) (*tensorVal, error) {
	b := c.b()
	r, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{-1}}, re)
	if err != nil {
		return nil, err
	}
	i, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{-1}}, im)
	if err != nil {
		return nil, err
	}
	out, err := b.emit1(c.scope, &canon.Concat{Axis: -1}, r, i)
	if err != nil {
		return nil, err
	}
	return b.markComplex(out), nil
}

func realFloatArgs(c *opCall, what string) (a, b *tensorVal, err error) {
	if a, err = c.tensor(0); err != nil {
		return
	}
	if b, err = c.tensor(1); err != nil {
		return
	}
	ia, ib := c.b().info(a), c.b().info(b)
	if !ia.DType.IsFloat() || ia.DType != ib.DType {
		return nil, nil, c.errf("takes two floating-point tensors of one dtype (%s), got %s and %s", what, ia.DType, ib.DType)
	}
	sa, oka := ia.StaticShape()
	sb, okb := ib.StaticShape()
	if !oka || !okb || len(sa) != len(sb) {
		return nil, nil, c.errf("needs %s of the same static shape", what)
	}
	for i := range sa {
		if sa[i] != sb[i] {
			return nil, nil, c.errf("needs %s of the same shape, got %v and %v", what, sa, sb)
		}
	}
	return a, b, nil
}

// opComplex: torch.complex(real, imag).
func opComplex(c *opCall) (value, error) {
	if err := c.bind("real", "imag"); err != nil {
		return nil, err
	}
	re, im, err := realFloatArgs(c, "real and imag")
	if err != nil {
		return nil, err
	}
	return c.pairOf(re, im)
}

// opPolar: torch.polar(abs, angle) = abs·cos(angle) + i·abs·sin(angle).
func opPolar(c *opCall) (value, error) {
	if err := c.bind("abs", "angle"); err != nil {
		return nil, err
	}
	r, a, err := realFloatArgs(c, "abs and angle")
	if err != nil {
		return nil, err
	}
	b := c.b()
	part := func(fn canon.MathFn) (*tensorVal, error) {
		t, err := b.emit1(c.scope, &canon.Math{Fn: fn}, a)
		if err != nil {
			return nil, err
		}
		return b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, r, t)
	}
	re, err := part(canon.MathCos)
	if err != nil {
		return nil, err
	}
	im, err := part(canon.MathSin)
	if err != nil {
		return nil, err
	}
	return c.pairOf(re, im)
}

// opRealPart is real, conj and resolve_* of a real tensor: the tensor
// itself. (Complex arguments never reach it: complexCall answers them.)
func opRealPart(c *opCall) (value, error) {
	return c.bindInput("self")
}

func opImagOfReal(c *opCall) (value, error) {
	return nil, c.errf("takes a complex tensor (torch refuses imag of a real tensor too)")
}

// complexPart is z.real (0) or z.imag (1) of a complex z.
func complexPart(k int64) opHandler {
	return func(c *opCall) (value, error) {
		z, err := c.bindInput("self")
		if err != nil {
			return nil, err
		}
		s, err := c.b().emit1(c.scope, &canon.Slice{Starts: []int64{k}, Ends: []int64{k + 1}, Axes: []int64{-1}, Steps: []int64{1}}, z)
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.Squeeze{Axes: []int64{-1}}, s)
	}
}

// opComplexAbs is |z| = sqrt(re² + im²), the L2 norm of the pair.
func opComplexAbs(c *opCall) (value, error) {
	z, err := c.bindInput("self")
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Reduce{Fn: canon.ReduceL2, Axes: []int64{-1}}, z)
}

// opConj negates the imaginary parts.
func opConj(c *opCall) (value, error) {
	z, err := c.bindInput("self")
	if err != nil {
		return nil, err
	}
	dt := c.b().info(z).DType
	k := canon.NewFloat32Tensor("", []int64{2}, []float32{1, -1})
	if dt != canon.Float32 {
		return nil, c.errf("conj of a %s complex tensor is not supported (complex64 only)", dt)
	}
	out, err := c.b().emit1(c.scope, &canon.Binary{Fn: canon.Mul}, z, &tensorVal{konst: k})
	if err != nil {
		return nil, err
	}
	return c.b().markComplex(out), nil
}

// opComplexSame: resolve_conj and resolve_neg materialize lazy views,
// which the pairs already are.
func opComplexSame(c *opCall) (value, error) {
	return c.bindInput("self")
}

func init() {
	for _, name := range []string{"torch.contiguous", "torch.clone", "torch.detach"} {
		complexHandlers[name] = opComplexPassThrough
	}
	complexHandlers["torch.add"] = complexSum(canon.Add)
	complexHandlers["torch.sub"] = complexSum(canon.Sub)
	complexHandlers["torch.mul"] = complexScale(canon.Mul)
	complexHandlers["torch.div"] = complexScale(canon.Div)
}

// opComplexPassThrough: contiguous, clone and detach leave the pairs as
// they are.
func opComplexPassThrough(c *opCall) (value, error) {
	if len(c.args) == 0 {
		return nil, c.errf("missing argument self")
	}
	return c.tensorArg(c.args[0])
}

func (c *opCall) tensorArg(v value) (*tensorVal, error) {
	t, ok := v.(*tensorVal)
	if !ok {
		return nil, c.errf("argument self must be a Tensor, got %s", typeName(v))
	}
	return t, nil
}

// complexSum adds or subtracts two complex tensors pair by pair (their
// shapes broadcast as the complex shapes do, the pair axis last).
func complexSum(fn canon.BinaryFn) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("self", "other", "alpha=1"); err != nil {
			return nil, err
		}
		if a, err := c.float(2); err != nil || a != 1 {
			return nil, c.errf("of complex tensors is read with alpha 1 only")
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		y, err := c.tensor(1)
		if err != nil {
			return nil, c.errf("of a complex tensor and a %s is not read (both must be complex tensors)", typeName(c.bound[1]))
		}
		b := c.b()
		if !b.isComplex(x) || !b.isComplex(y) {
			return nil, c.errf("of a complex and a real tensor is not read (make both complex with torch.complex)")
		}
		if b.info(x).DType != b.info(y).DType {
			return nil, c.errf("of complex tensors of different precisions is not read")
		}
		out, err := b.emit1(c.scope, &canon.Binary{Fn: fn}, x, y)
		if err != nil {
			return nil, err
		}
		return b.markComplex(out), nil
	}
}

// complexScale multiplies or divides a complex tensor by a real number or
// a real tensor (broadcast over the pairs), both parts alike.
func complexScale(fn canon.BinaryFn) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("self", "other"); err != nil {
			return nil, err
		}
		z, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		b := c.b()
		if !b.isComplex(z) {
			return nil, c.errf("of a real tensor by a complex one is not read")
		}
		dt := b.info(z).DType
		var k *tensorVal
		switch o := c.bound[1].(type) {
		case float64, int64:
			f, _ := c.float(1)
			k = &tensorVal{konst: floatConst(dt, []int64{}, []float64{f})}
		case *tensorVal:
			if o.konst != nil && o.konst.NumElements() == 1 && len(o.konst.Shape) == 0 {
				// A traced Python number: a 0-d constant, which does not
				// promote the complex dtype.
				v, err := o.konst.Float64s()
				if err != nil {
					return nil, c.errf("other: %v", err)
				}
				k = &tensorVal{konst: floatConst(dt, []int64{}, v)}
				break
			}
			if b.isComplex(o) {
				return nil, c.errf("of two complex tensors is not read (only by a real number or tensor)")
			}
			if b.info(o).DType != dt {
				return nil, c.errf("by a %s tensor is not read (the complex tensor is %s)", b.info(o).DType, dt)
			}
			if k, err = b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{-1}}, o); err != nil {
				return nil, err
			}
		default:
			return nil, c.errf("by a %s is not read", typeName(o))
		}
		out, err := b.emit1(c.scope, &canon.Binary{Fn: fn}, z, k)
		if err != nil {
			return nil, err
		}
		return b.markComplex(out), nil
	}
}
