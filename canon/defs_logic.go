package canon

import (
	"fmt"
	"math"
)

// The logic family: the bool connectives And, Or, Xor and Not; the
// integer bit operations BitwiseAnd/Or/Xor/Not and BitShift; the variadic
// Max, Min, Sum and Mean; Mod and Pow. Every one broadcasts NumPy-style.
// The integer semantics live here (LogicFn.Apply, ModInt, PowInt...) so
// that inference's constant folding and the interpreter agree.

func init() {
	for _, d := range logicOps() {
		Register(withReason(d, logicWithout))
	}
}

// ---- typed attributes ----

// LogicFn is a bool connective of two inputs.
type LogicFn uint8

const (
	LogicAnd LogicFn = iota
	LogicOr
	LogicXor
)

var logicNames = [...]string{LogicAnd: "And", LogicOr: "Or", LogicXor: "Xor"}

func (f LogicFn) String() string {
	if int(f) < len(logicNames) {
		return logicNames[f]
	}
	return fmt.Sprintf("Logic(fn %d)", f)
}

// Apply is the connective on two truth values.
func (f LogicFn) Apply(a, b bool) bool {
	switch f {
	case LogicAnd:
		return a && b
	case LogicOr:
		return a || b
	}
	return a != b
}

// Logic is an elementwise connective of two bool tensors (ONNX And, Or,
// Xor); the output is bool.
type Logic struct {
	Fn LogicFn
}

func (o *Logic) Kind() string       { return o.Fn.String() }
func (*Logic) Signature() Signature { return sig(1, inA, inB) }

// Not negates a bool tensor.
type Not struct{}

func (*Not) Kind() string         { return "Not" }
func (*Not) Signature() Signature { return sig(1, inX) }

// BitwiseFn is a bit operation on two integers.
type BitwiseFn uint8

const (
	BitAnd BitwiseFn = iota
	BitOr
	BitXor
)

var bitwiseNames = [...]string{BitAnd: "BitwiseAnd", BitOr: "BitwiseOr", BitXor: "BitwiseXor"}

func (f BitwiseFn) String() string {
	if int(f) < len(bitwiseNames) {
		return bitwiseNames[f]
	}
	return fmt.Sprintf("Bitwise(fn %d)", f)
}

// Apply is the operation on two integer storage values. Signed values are
// sign-extended and unsigned ones zero-extended to 64 bits, and both stay
// so under &, | and ^: no wrap is needed.
func (f BitwiseFn) Apply(a, b int64) int64 {
	switch f {
	case BitAnd:
		return a & b
	case BitOr:
		return a | b
	}
	return a ^ b
}

// Bitwise is an elementwise bit operation on two integer tensors of one
// dtype (ONNX BitwiseAnd, BitwiseOr, BitwiseXor).
type Bitwise struct {
	Fn BitwiseFn
}

func (o *Bitwise) Kind() string       { return o.Fn.String() }
func (*Bitwise) Signature() Signature { return sig(1, inA, inB) }

// BitwiseNot flips every bit of an integer tensor.
type BitwiseNot struct{}

func (*BitwiseNot) Kind() string         { return "BitwiseNot" }
func (*BitwiseNot) Signature() Signature { return sig(1, inX) }

// BitShift shifts the bits of unsigned X left (Left) or right by Y bits;
// a shift by the width or more gives 0.
type BitShift struct {
	Left bool
}

func (*BitShift) Kind() string         { return "BitShift" }
func (*BitShift) Signature() Signature { return sig(1, inX, InputSpec{Name: "Y"}) }

// ShiftInt is x shifted by s bits for unsigned dtype dt, wrapped to its
// width (values are the storage's int64 bit patterns).
func ShiftInt(dt DType, x, s int64, left bool) int64 {
	w := uint64(dt.Size() * 8)
	if uint64(s) >= w {
		return 0
	}
	u := uint64(x)
	if left {
		u <<= uint64(s)
		if w < 64 {
			u &= 1<<w - 1
		}
	} else {
		u >>= uint64(s)
	}
	return int64(u)
}

// VariadicFn is the function of a variadic elementwise op.
type VariadicFn uint8

const (
	VarMax VariadicFn = iota
	VarMin
	VarSum
	VarMean
)

var variadicNames = [...]string{VarMax: "Max", VarMin: "Min", VarSum: "Sum", VarMean: "Mean"}

func (f VariadicFn) String() string {
	if int(f) < len(variadicNames) {
		return variadicNames[f]
	}
	return fmt.Sprintf("Variadic(fn %d)", f)
}

// Variadic is the elementwise maximum, minimum, sum or mean of one or more
// inputs of one dtype, broadcast together (ONNX's multidirectional
// broadcasting). A NaN operand makes Max's and Min's result NaN, as in
// ONNX Runtime. Mean takes floating-point inputs only.
type Variadic struct {
	Fn VariadicFn
}

func (o *Variadic) Kind() string { return o.Fn.String() }
func (*Variadic) Signature() Signature {
	return sig(1, InputSpec{Name: "X", Variadic: true})
}

// LessInt orders two integer storage values of dtype dt (u64 values are
// stored with their bit pattern in int64).
func LessInt(dt DType, a, b int64) bool {
	if dt == Uint64 {
		return uint64(a) < uint64(b)
	}
	return a < b
}

// Mod is the remainder of A divided by B. With Fmod it is C's fmod: the
// sign of the dividend, truncated division. Without it, Python's %: the
// sign of the divisor, floored division (ONNX fmod=0, which ONNX allows on
// integers only; canon allows it on floats too, for torch.remainder and
// MXNet's mod).
type Mod struct {
	Fmod bool
}

func (*Mod) Kind() string         { return "Mod" }
func (*Mod) Signature() Signature { return sig(1, inA, inB) }

// ModInt is a mod b on integer storage values of dtype dt; the caller rules
// out b == 0. The result always fits dt.
func ModInt(dt DType, a, b int64, fmod bool) int64 {
	if dt == Uint64 {
		return int64(uint64(a) % uint64(b))
	}
	r := a % b // Go's % truncates, like C; MinInt64 % -1 is 0
	if !fmod && r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r
}

// ModFloat is a mod b in floating point: fmod, or with the divisor's sign
// (Python's %) when fmod is false. b == 0 gives NaN.
func ModFloat(a, b float64, fmod bool) float64 {
	r := math.Mod(a, b)
	if !fmod && r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r
}

// Pow raises the base X to the power Y, elementwise with broadcasting. The
// two may have different dtypes (a float base with an integer exponent);
// the output has the base's. An integer base with an integer exponent is
// exact (wrapping at the base's width); with a float exponent the power is
// computed in float64 and truncated toward zero, as ONNX Runtime does.
type Pow struct{}

func (*Pow) Kind() string         { return "Pow" }
func (*Pow) Signature() Signature { return sig(1, inX, InputSpec{Name: "Y"}) }

// PowInt is base**e in int64 arithmetic (the caller wraps to the base's
// width). eUnsigned reads e as a u64 bit pattern. A negative exponent
// truncates 1/base**|e| toward zero: ±1 for a base of ±1, 0 otherwise
// (including base 0, whose power is infinite and has no integer value).
func PowInt(base, e int64, eUnsigned bool) int64 {
	if e < 0 && !eUnsigned {
		switch {
		case base == 1:
			return 1
		case base == -1 && e%2 == 0:
			return 1
		case base == -1:
			return -1
		}
		return 0
	}
	u := uint64(e)
	r := int64(1)
	for u > 0 {
		if u&1 == 1 {
			r *= base
		}
		base *= base
		u >>= 1
	}
	return r
}

// ---- definitions ----

func logicOps() []*OpDef {
	bcast := func(cost float64) Traits { return Traits{Elementwise: true, Broadcasts: true, MathCost: cost} }
	boolIn := func(shape ...int64) ExampleInput {
		n := NumElements(shape)
		b := make([]byte, n)
		for i := range b {
			// A fixed pattern with both values in every row.
			if (i*7+i/3)%3 != 0 {
				b[i] = 1
			}
		}
		return ExampleInput{DType: Bool, Shape: shape, Const: &Tensor{DType: Bool, Shape: shape, Data: b}}
	}
	var defs []*OpDef
	for fn, name := range logicNames {
		defs = append(defs, &OpDef{
			Kind: name, Summary: "elementwise logical " + name + " of two bool tensors with NumPy broadcasting",
			New:    func() Op { return &Logic{Fn: LogicFn(fn)} },
			Traits: bcast(1),
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.logic(c.n.Op.(*Logic))) },
			Check: func(c *CheckCtx) error {
				if f := c.N.Op.(*Logic).Fn; int(f) >= len(logicNames) {
					return c.Errorf("unknown logic code %d", f)
				}
				return nil
			},
			Example: func() Example {
				// Constants (the test harnesses feed float inputs only),
				// broadcast along rows.
				return Example{Op: &Logic{Fn: LogicFn(fn)}, Inputs: []ExampleInput{boolIn(3, 4), boolIn(4)}}
			},
		})
	}
	for fn, name := range bitwiseNames {
		defs = append(defs, &OpDef{
			Kind: name, Summary: "elementwise bitwise " + name[len("Bitwise"):] + " of two integer tensors with NumPy broadcasting",
			New:    func() Op { return &Bitwise{Fn: BitwiseFn(fn)} },
			Traits: bcast(1),
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.bitwise()) },
			Check: func(c *CheckCtx) error {
				if f := c.N.Op.(*Bitwise).Fn; int(f) >= len(bitwiseNames) {
					return c.Errorf("unknown bitwise code %d", f)
				}
				return nil
			},
			Example: func() Example {
				a := exampleInts(Int32, []int64{3, 4}, []int64{0, 1, -1, 7, 12, -100, 255, 1 << 20, -7, 3, 0x0f0f, -65536})
				b := exampleInts(Int32, []int64{4}, []int64{-1, 6, 0x55, -128})
				return Example{Op: &Bitwise{Fn: BitwiseFn(fn)}, Inputs: []ExampleInput{a, b}}
			},
		})
	}
	for fn, name := range variadicNames {
		summary := map[VariadicFn]string{
			VarMax:  "elementwise maximum of 1..N inputs with broadcasting; NaN propagates",
			VarMin:  "elementwise minimum of 1..N inputs with broadcasting; NaN propagates",
			VarSum:  "elementwise sum of 1..N inputs with broadcasting",
			VarMean: "elementwise mean of 1..N floating-point inputs with broadcasting",
		}[VariadicFn(fn)]
		var decompose func(*Expander) error
		if VariadicFn(fn) == VarSum {
			decompose = sumExpand
		}
		defs = append(defs, &OpDef{
			Kind: name, Summary: summary,
			Decompose: decompose,
			New:       func() Op { return &Variadic{Fn: VariadicFn(fn)} },
			Traits:    bcast(1),
			Infer:     func(c *InferCtx) ([]ValueInfo, error) { return one(c.variadic(c.n.Op.(*Variadic))) },
			Check: func(c *CheckCtx) error {
				if f := c.N.Op.(*Variadic).Fn; int(f) >= len(variadicNames) {
					return c.Errorf("unknown variadic code %d", f)
				}
				return nil
			},
			Example: func() Example {
				// Three inputs of three ranks, broadcast together.
				return Example{Op: &Variadic{Fn: VariadicFn(fn)}, Inputs: []ExampleInput{
					{DType: Float32, Shape: []int64{2, 4, 5}}, exampleF32(4, 1), exampleF32(5)}}
			},
		})
	}
	defs = append(defs,
		&OpDef{
			Kind: "Not", Summary: "elementwise logical negation of a bool tensor",
			New: func() Op { return &Not{} }, Traits: unaryElementwise(1),
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.not()) },
			Example: func() Example {
				return Example{Op: &Not{}, Inputs: []ExampleInput{boolIn(3, 4)}}
			},
		},
		&OpDef{
			Kind: "BitwiseNot", Summary: "elementwise bit complement of an integer tensor",
			New: func() Op { return &BitwiseNot{} }, Traits: unaryElementwise(1),
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.bitwiseNot()) },
			Example: func() Example {
				return Example{Op: &BitwiseNot{}, Inputs: []ExampleInput{exampleInts(Int32, []int64{2, 3}, []int64{0, -1, 5, -128, 1 << 30, 77})}}
			},
		},
		&OpDef{
			Kind: "BitShift", Summary: "shift the bits of unsigned integers left or right, with broadcasting",
			New: func() Op { return &BitShift{} }, Traits: bcast(1),
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.bitShift()) },
			Example: func() Example {
				// Shifts of 0 to 7 bits on u8 data: bits fall off the top.
				x := exampleInts(Uint8, []int64{3, 4}, []int64{0, 1, 2, 3, 15, 16, 100, 128, 200, 254, 255, 77})
				s := exampleInts(Uint8, []int64{4}, []int64{0, 1, 3, 7})
				return Example{Op: &BitShift{Left: true}, Inputs: []ExampleInput{x, s}}
			},
		},
		&OpDef{
			Kind: "Mod", Summary: "remainder with the divisor's sign (Python %) or the dividend's (C fmod), with broadcasting",
			New: func() Op { return &Mod{} }, Traits: bcast(2),
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.mod()) },
			Example: func() Example {
				// Python-style remainders (fmod=0) on floats, divisors of
				// both signs: ONNX needs an expansion for this one.
				b := NewFloat32Tensor("", []int64{4}, []float32{0.75, -0.75, 1.5, -0.4})
				return Example{Op: &Mod{}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3, 4}}, {DType: Float32, Shape: b.Shape, Const: b}}}
			},
		},
		&OpDef{
			Kind: "Pow", Summary: "base to the power of the exponent (dtypes may differ; the base's is kept), with broadcasting",
			New: func() Op { return &Pow{} }, Traits: bcast(8),
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.pow()) },
			Example: func() Example {
				// A float base with small integer exponents (of another
				// dtype), defined for negative bases too.
				e := exampleInts(Int64, []int64{4}, []int64{0, 1, 2, 3})
				return Example{Op: &Pow{}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3, 4}}, e}}
			},
		},
	)
	return defs
}

// exampleInts is a constant integer example input.
func exampleInts(dt DType, shape, v []int64) ExampleInput {
	return ExampleInput{DType: dt, Shape: shape, Const: makeIntConst("", dt, shape, v)}
}

// ---- inference ----

// needDType fails unless input i's dtype (when known) satisfies ok.
func (c *InferCtx) needDType(i int, ok func(DType) bool, want string) error {
	if dt := c.in[i].DType; dt != Undefined && !ok(dt) {
		return c.errf("%s %q is %s; %s takes %s", c.slot(i), c.n.Inputs[i], dt, opKind(c.n.Op), want)
	}
	return nil
}

func isUnsigned(dt DType) bool { return dt == Uint8 || dt == Uint16 || dt == Uint32 || dt == Uint64 }

func isNumeric(dt DType) bool { return dt.IsFloat() || dt.IsInt() }

// foldInts computes, when every input is a small known integer or bool
// constant and the output is small, the output of dtype dt from fn applied
// to the inputs' values at each broadcast position. fn may refuse (ok
// false) to leave the value to run time.
func (c *InferCtx) foldInts(out []Dim, dt DType, fn func(v []int64) (int64, bool)) *Tensor {
	s, small := staticSmall(out)
	if !small {
		return nil
	}
	ks := make([]*Tensor, len(c.in))
	vals := make([][]int64, len(c.in))
	for i, v := range c.in {
		ks[i] = constIntOrBool(v)
		if ks[i] == nil {
			return nil
		}
		var err error
		if vals[i], err = ks[i].Int64s(); err != nil {
			return nil
		}
	}
	res := make([]int64, NumElements(s))
	args := make([]int64, len(ks))
	for i := range res {
		for k, t := range ks {
			args[k] = vals[k][broadcastIndex(int64(i), s, t.Shape)]
		}
		r, ok := fn(args)
		if !ok {
			return nil
		}
		res[i] = r
	}
	if dt == Bool {
		return boolConst(c.outName(0), s, res)
	}
	return makeIntConst(c.outName(0), dt, s, res)
}

// allInputs lists 0..len(in)-1.
func (c *InferCtx) allInputs() []int {
	idx := make([]int, len(c.in))
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// sameDTypes fails unless every input has one dtype, which it returns
// (Undefined when none is known).
func (c *InferCtx) sameDTypes() (DType, error) {
	dt, first := Undefined, 0
	for i, v := range c.in {
		switch {
		case v.DType == Undefined:
		case dt == Undefined:
			dt, first = v.DType, i
		case v.DType != dt:
			return Undefined, c.errf("%s %q is %s but %s %q is %s; %s needs equal types",
				c.slot(i), c.n.Inputs[i], v.DType, c.slot(first), c.n.Inputs[first], dt, opKind(c.n.Op))
		}
	}
	return dt, nil
}

// broadcastFold is the common tail of the broadcasting ops: the output
// type of dtype dt, with its value when the inputs are small constants.
func (c *InferCtx) broadcastFold(dt DType, fn func(v []int64) (int64, bool)) (ValueInfo, error) {
	out, ok, err := c.broadcastAll(c.allInputs()...)
	if err != nil || !ok {
		return ValueInfo{DType: dt}, err
	}
	v := shaped(dt, out)
	if fn != nil {
		v.Const = c.foldInts(out, dt, fn)
	}
	return v, nil
}

func (c *InferCtx) logic(op *Logic) (ValueInfo, error) {
	for i := range c.in {
		if err := c.needDType(i, func(d DType) bool { return d == Bool }, "bool tensors"); err != nil {
			return ValueInfo{}, err
		}
	}
	return c.broadcastFold(Bool, func(v []int64) (int64, bool) { return b2i(op.Fn.Apply(v[0] != 0, v[1] != 0)), true })
}

func (c *InferCtx) not() (ValueInfo, error) {
	if err := c.needDType(0, func(d DType) bool { return d == Bool }, "a bool tensor"); err != nil {
		return ValueInfo{}, err
	}
	return c.broadcastFold(Bool, func(v []int64) (int64, bool) { return b2i(v[0] == 0), true })
}

func (c *InferCtx) bitwise() (ValueInfo, error) {
	dt, err := c.sameDTypes()
	if err == nil {
		err = c.needDType(0, DType.IsInt, "integer tensors")
	}
	if err != nil {
		return ValueInfo{}, err
	}
	fn := c.n.Op.(*Bitwise).Fn
	return c.broadcastFold(dt, func(v []int64) (int64, bool) { return fn.Apply(v[0], v[1]), true })
}

func (c *InferCtx) bitwiseNot() (ValueInfo, error) {
	if err := c.needDType(0, DType.IsInt, "an integer tensor"); err != nil {
		return ValueInfo{}, err
	}
	return c.broadcastFold(c.in[0].DType, func(v []int64) (int64, bool) { return ^v[0], true })
}

func (c *InferCtx) bitShift() (ValueInfo, error) {
	dt, err := c.sameDTypes()
	if err == nil {
		err = c.needDType(0, isUnsigned, "unsigned integer tensors (u8, u16, u32, u64)")
	}
	if err != nil {
		return ValueInfo{}, err
	}
	left := c.n.Op.(*BitShift).Left
	return c.broadcastFold(dt, func(v []int64) (int64, bool) { return ShiftInt(dt, v[0], v[1], left), true })
}

func (c *InferCtx) variadic(op *Variadic) (ValueInfo, error) {
	dt, err := c.sameDTypes()
	if err != nil {
		return ValueInfo{}, err
	}
	if op.Fn == VarMean {
		err = c.needDType(0, DType.IsFloat, "floating-point tensors")
	} else {
		err = c.needDType(0, isNumeric, "numeric tensors (not bool)")
	}
	if err != nil {
		return ValueInfo{}, err
	}
	var fn func(v []int64) (int64, bool)
	if dt.IsInt() {
		fn = func(v []int64) (int64, bool) {
			r := v[0]
			for _, x := range v[1:] {
				switch op.Fn {
				case VarMax:
					if LessInt(dt, r, x) {
						r = x
					}
				case VarMin:
					if LessInt(dt, x, r) {
						r = x
					}
				case VarSum:
					r += x // makeIntConst wraps to the width
				}
			}
			return r, true
		}
	}
	return c.broadcastFold(dt, fn)
}

func (c *InferCtx) mod() (ValueInfo, error) {
	dt, err := c.sameDTypes()
	if err == nil {
		err = c.needDType(0, isNumeric, "numeric tensors (not bool)")
	}
	if err != nil {
		return ValueInfo{}, err
	}
	fmod := c.n.Op.(*Mod).Fmod
	return c.broadcastFold(dt, func(v []int64) (int64, bool) {
		if v[1] == 0 {
			return 0, false // the run-time error names it
		}
		return ModInt(dt, v[0], v[1], fmod), true
	})
}

func (c *InferCtx) pow() (ValueInfo, error) {
	for i := range c.in {
		if err := c.needDType(i, isNumeric, "numeric tensors (not bool)"); err != nil {
			return ValueInfo{}, err
		}
	}
	dt, et := c.in[0].DType, c.in[1].DType
	var fn func(v []int64) (int64, bool)
	if dt.IsInt() && et.IsInt() {
		fn = func(v []int64) (int64, bool) { return PowInt(v[0], v[1], et == Uint64), true }
	}
	return c.broadcastFold(dt, fn)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// logicWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var logicWithout = Without{Accumulation: SumsNothing, RemapAxes: NoRemapYet, Decompose: Primitive, Noop: NoNoopSetting}
