package canon

import "fmt"

// The convert family: Cast, Where, Expand, Tile, Size and the comparisons
// Equal, Less, LessOrEqual, Greater and GreaterOrEqual. ONNX's CastLike
// is read into Cast: the target dtype is always known at import.

func init() {
	for _, d := range convertOps() {
		Register(withReason(d, convertWithout))
	}
}

// ---- typed attributes ----

// Cast converts X to dtype To. Float to integer truncates toward zero (as
// ONNX Runtime does), float to f16/bf16 rounds to nearest even, anything
// to bool is x != 0. ONNX's saturate attribute only concerns float8, which
// canon does not carry.
type Cast struct {
	To DType
}

func (*Cast) Kind() string         { return "Cast" }
func (*Cast) Signature() Signature { return sig(1, inX) }

// Where picks X where Cond is true and Y elsewhere; the three inputs
// broadcast NumPy-style.
type Where struct{}

func (*Where) Kind() string { return "Where" }
func (*Where) Signature() Signature {
	return sig(1, InputSpec{Name: "Cond"}, inX, InputSpec{Name: "Y"})
}

// Expand broadcasts X against Shape (ONNX's bidirectional broadcasting:
// the output shape is the broadcast of X's shape and Shape, so a 1 in
// Shape keeps X's size).
//
// A shape computed at run time is the optional input Shape instead (a 1-D
// i64 tensor); the attribute is then nil.
type Expand struct {
	Shape []int64
}

func (*Expand) Kind() string         { return "Expand" }
func (*Expand) Signature() Signature { return sig(1, inX, param("Shape")) }

func (o *Expand) AttrGiven(int) (string, bool) { return "Shape", o.Shape != nil }

// Tile repeats X Repeats[i] times along axis i (one entry per axis).
//
// Repeats computed at run time are the optional input Repeats instead (a
// 1-D i64 tensor); the attribute is then nil.
type Tile struct {
	Repeats []int64
}

func (*Tile) Kind() string         { return "Tile" }
func (*Tile) Signature() Signature { return sig(1, inX, param("Repeats")) }

func (o *Tile) AttrGiven(int) (string, bool) { return "Repeats", o.Repeats != nil }

// Size is X's element count as an i64 scalar.
type Size struct{}

func (*Size) Kind() string         { return "Size" }
func (*Size) Signature() Signature { return sig(1, inX) }

// CompareFn is an elementwise comparison.
type CompareFn uint8

const (
	CmpEqual CompareFn = iota
	CmpLess
	CmpLessOrEqual
	CmpGreater
	CmpGreaterOrEqual
)

var compareNames = [...]string{CmpEqual: "Equal", CmpLess: "Less", CmpLessOrEqual: "LessOrEqual", CmpGreater: "Greater", CmpGreaterOrEqual: "GreaterOrEqual"}

func (f CompareFn) String() string {
	if int(f) < len(compareNames) {
		return compareNames[f]
	}
	return fmt.Sprintf("Compare(fn %d)", f)
}

// Holds reports whether the comparison is true of a and b; every
// comparison involving NaN is false.
func (f CompareFn) Holds(a, b float64) bool {
	switch f {
	case CmpEqual:
		return a == b
	case CmpLess:
		return a < b
	case CmpLessOrEqual:
		return a <= b
	case CmpGreater:
		return a > b
	case CmpGreaterOrEqual:
		return a >= b
	}
	return false
}

// HoldsInt is Holds on exact integers.
func (f CompareFn) HoldsInt(a, b int64) bool {
	switch f {
	case CmpEqual:
		return a == b
	case CmpLess:
		return a < b
	case CmpLessOrEqual:
		return a <= b
	case CmpGreater:
		return a > b
	case CmpGreaterOrEqual:
		return a >= b
	}
	return false
}

// Compare compares A and B elementwise with NumPy broadcasting; the output
// is bool.
type Compare struct {
	Fn CompareFn
}

func (o *Compare) Kind() string       { return o.Fn.String() }
func (*Compare) Signature() Signature { return sig(1, inA, inB) }

// ---- definitions ----

func convertOps() []*OpDef {
	defs := []*OpDef{
		{
			Kind: "Cast", Summary: "convert to another dtype (floats to integers truncate toward zero)",
			NoopWhen: castNoop,
			New:      func() Op { return &Cast{To: Float32} },
			Traits:   unaryElementwise(1),
			Infer:    func(c *InferCtx) ([]ValueInfo, error) { return one(c.cast(c.n.Op.(*Cast))) },
			Check: func(c *CheckCtx) error {
				to := c.N.Op.(*Cast).To
				if to == String {
					return c.Errorf("casting to strings is not supported: the text ONNX Runtime writes for a number (its float formatting) is not reproduced")
				}
				if to.Size() == 0 {
					return c.Errorf("target dtype %s is not a tensor dtype", to)
				}
				return nil
			},
			Example: func() Example {
				// Values well beyond ±1 so that truncation shows.
				x := exampleF32(2, 3, 4)
				x.Const = scaled(x.Const, 6.5)
				return Example{Op: &Cast{To: Int32}, Inputs: []ExampleInput{x}}
			},
		},
		{
			Kind: "Where", Summary: "X where Cond is true, Y elsewhere, with NumPy broadcasting",
			// Not marked Elementwise: the transpose passes assume such an
			// op's input 0 is the data, where Where's is the condition.
			New:    func() Op { return &Where{} },
			Traits: Traits{Broadcasts: true},
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.where()) },
			Example: func() Example {
				cond := &Tensor{DType: Bool, Shape: []int64{1, 5}, Data: []byte{1, 0, 0, 1, 1}}
				return Example{Op: &Where{}, Inputs: []ExampleInput{{DType: Bool, Shape: cond.Shape, Const: cond}, exampleX, exampleF32(4, 1, 1)}}
			},
		},
		{
			Kind: "Expand", Summary: "broadcast to a shape, both ways (constant or run-time shape)",
			New:   func() Op { return &Expand{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.expand(c.n.Op.(*Expand))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Expand)
				if op.Shape == nil && !c.HasInput(1) {
					return c.Errorf("has neither a Shape attribute nor a shape input")
				}
				return c.AtLeast("Shape", op.Shape, 0)
			},
			Example: func() Example {
				return Example{Op: &Expand{Shape: []int64{2, 1, 3, 4, 1}}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{3, 1, 5}}}}
			},
		},
		{
			Kind: "Tile", Summary: "repeat the input along each axis (constant or run-time repeats)",
			New:   func() Op { return &Tile{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.tile(c.n.Op.(*Tile))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Tile)
				if op.Repeats == nil && !c.HasInput(1) {
					return c.Errorf("has neither a Repeats attribute nor a repeats input")
				}
				return c.AtLeast("Repeats", op.Repeats, 0)
			},
			Example: func() Example {
				return Example{Op: &Tile{Repeats: []int64{2, 1, 3}}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3, 4}}}}
			},
		},
		{
			Kind: "Size", Summary: "the input's element count as an i64 scalar",
			New:     func() Op { return &Size{} },
			Infer:   func(c *InferCtx) ([]ValueInfo, error) { return one(c.size()) },
			Example: unaryExample(&Size{}),
		},
	}
	for fn, name := range compareNames {
		defs = append(defs, &OpDef{
			Kind: name, Summary: "elementwise " + name + " with NumPy broadcasting; bool output",
			New:    func() Op { return &Compare{Fn: CompareFn(fn)} },
			Traits: Traits{Elementwise: true, Broadcasts: true, MathCost: 1},
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.compare(c.n.Op.(*Compare))) },
			Check: func(c *CheckCtx) error {
				if f := c.N.Op.(*Compare).Fn; int(f) >= len(compareNames) {
					return c.Errorf("unknown comparison code %d", f)
				}
				return nil
			},
			Example: func() Example {
				// B repeats some of A's values so that equality shows.
				b := exampleF32(5)
				a := exampleF32(1, 4, 5, 5)
				return Example{Op: &Compare{Fn: CompareFn(fn)}, Inputs: []ExampleInput{a, b}}
			},
		})
	}
	return defs
}

// scaled returns a copy of a float32 tensor with every value times k.
func scaled(t *Tensor, k float32) *Tensor {
	v, _ := t.Float64s()
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x) * k
	}
	return NewFloat32Tensor(t.Name, t.Shape, f)
}

// ---- inference ----

// constIntOrBool is v's content when it is a small integer or bool tensor
// whose shape agrees with v's type (constOf without the bool exclusion).
func constIntOrBool(v ValueInfo) *Tensor {
	if v.DType != Bool {
		return constOf(v)
	}
	t := constAny(v)
	if t == nil || NumElements(t.Shape) > maxConstElems {
		return nil
	}
	return t
}

// boolConst encodes v (0 or 1) as a bool tensor.
func boolConst(name string, shape []int64, v []int64) *Tensor {
	b := make([]byte, len(v))
	for i, x := range v {
		if x != 0 {
			b[i] = 1
		}
	}
	if shape == nil {
		shape = []int64{}
	}
	return &Tensor{Name: name, DType: Bool, Shape: shape, Data: b}
}

func (c *InferCtx) cast(op *Cast) (ValueInfo, error) {
	x := c.in[0]
	v := ValueInfo{DType: op.To, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}
	// Shape arithmetic often casts its integers (PyTorch's exports do).
	if k := constIntOrBool(x); k != nil && (op.To.IsInt() || op.To == Bool) {
		if vals, err := k.Int64s(); err == nil {
			if op.To == Bool {
				v.Const = boolConst(c.outName(0), k.Shape, vals)
			} else {
				v.Const = makeIntConst(c.outName(0), op.To, k.Shape, vals)
			}
		}
	}
	return v, nil
}

// broadcastAll broadcasts the shapes of the given inputs, or reports which
// do not broadcast. ok is false when a rank is unknown.
func (c *InferCtx) broadcastAll(idx ...int) ([]Dim, bool, error) {
	var out []Dim
	for k, i := range idx {
		v := c.in[i]
		if !v.RankKnown {
			return nil, false, nil
		}
		if k == 0 {
			out = cloneDims(v.Shape)
			continue
		}
		b, ax, ok := broadcastDims(out, v.Shape)
		if !ok {
			return nil, false, c.errf("%s %q %s does not broadcast with the other inputs (%s so far): axis %d has %s vs %s",
				c.slot(i), c.n.Inputs[i], fmtShape(v), fmtDims(out), ax, fmtDims([]Dim{dimFromEnd(out, ax)}), fmtDims([]Dim{dimFromEnd(v.Shape, ax)}))
		}
		out = b
	}
	return out, true, nil
}

func (c *InferCtx) where() (ValueInfo, error) {
	if dt := c.in[0].DType; dt != Undefined && dt != Bool {
		return ValueInfo{}, c.errf("Cond %q is %s, want bool", c.n.Inputs[0], dt)
	}
	if err := c.sameDType(1, 2); err != nil {
		return ValueInfo{}, err
	}
	dt := c.in[1].DType
	if dt == Undefined {
		dt = c.in[2].DType
	}
	out, ok, err := c.broadcastAll(0, 1, 2)
	if err != nil || !ok {
		return ValueInfo{DType: dt}, err
	}
	v := shaped(dt, out)
	// torch.onnx writes Where into shape arithmetic (expand's -1 sizes).
	cond, a, b := constIntOrBool(c.in[0]), constOf(c.in[1]), constOf(c.in[2])
	if s, small := staticSmall(out); small && cond != nil && a != nil && b != nil {
		cv, err1 := cond.Int64s()
		av, err2 := a.Int64s()
		bv, err3 := b.Int64s()
		if err1 == nil && err2 == nil && err3 == nil {
			res := make([]int64, NumElements(s))
			for i := range res {
				if cv[broadcastIndex(int64(i), s, cond.Shape)] != 0 {
					res[i] = av[broadcastIndex(int64(i), s, a.Shape)]
				} else {
					res[i] = bv[broadcastIndex(int64(i), s, b.Shape)]
				}
			}
			v.Const = makeIntConst(c.outName(0), dt, s, res)
		}
	}
	return v, nil
}

func (c *InferCtx) compare(op *Compare) (ValueInfo, error) {
	if err := c.sameDType(0, 1); err != nil {
		return ValueInfo{}, err
	}
	if c.in[0].DType == String && op.Fn != CmpEqual {
		return ValueInfo{}, c.errf("inputs are strings; of the comparisons only Equal takes strings")
	}
	out, ok, err := c.broadcastAll(0, 1)
	if err != nil || !ok {
		return ValueInfo{DType: Bool}, err
	}
	v := shaped(Bool, out)
	a, b := constIntOrBool(c.in[0]), constIntOrBool(c.in[1])
	if s, small := staticSmall(out); small && a != nil && b != nil {
		av, err1 := a.Int64s()
		bv, err2 := b.Int64s()
		if err1 == nil && err2 == nil {
			res := make([]int64, NumElements(s))
			for i := range res {
				x, y := av[broadcastIndex(int64(i), s, a.Shape)], bv[broadcastIndex(int64(i), s, b.Shape)]
				if a.DType == Uint64 && (x < 0 || y < 0) {
					return v, nil // beyond int64: leave it to run time
				}
				if op.Fn.HoldsInt(x, y) {
					res[i] = 1
				}
			}
			v.Const = boolConst(c.outName(0), s, res)
		}
	}
	return v, nil
}

// expand infers Expand: the output is the broadcast of X's shape and the
// target shape.
func (c *InferCtx) expand(op *Expand) (ValueInfo, error) {
	x := c.in[0]
	target := op.Shape
	if c.present(1) {
		v, known, err := c.paramInts(1, "Shape")
		if err != nil {
			return ValueInfo{}, err
		}
		if !known {
			// The rank is max(rank X, entries); the sizes are unknown.
			if n := c.paramLen(1); n >= 0 && x.RankKnown {
				return shaped(x.DType, unknownDims(max(len(x.Shape), int(n)))), nil
			}
			return ValueInfo{DType: x.DType}, nil
		}
		for _, d := range v {
			if d < 0 {
				return ValueInfo{}, c.errf("Shape input %q holds %v; sizes must be >= 0", c.n.Inputs[1], v)
			}
		}
		target = v
	}
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	out, ax, ok := broadcastDims(x.Shape, DimsOf(target...))
	if !ok {
		return ValueInfo{}, c.errf("input %q %s cannot be expanded to %v: axis %d has %s vs %d",
			c.n.Inputs[0], fmtShape(x), target, ax, fmtDims([]Dim{dimFromEnd(x.Shape, ax)}), target[len(target)+ax])
	}
	v := shaped(x.DType, out)
	if k := constIntOrBool(x); k != nil {
		if s, small := staticSmall(out); small {
			vals, err := k.Int64s()
			if err == nil {
				res := make([]int64, NumElements(s))
				for i := range res {
					res[i] = vals[broadcastIndex(int64(i), s, k.Shape)]
				}
				if x.DType == Bool {
					v.Const = boolConst(c.outName(0), s, res)
				} else {
					v.Const = makeIntConst(c.outName(0), x.DType, s, res)
				}
			}
		}
	}
	return v, nil
}

func (c *InferCtx) tile(op *Tile) (ValueInfo, error) {
	x := c.in[0]
	reps := op.Repeats
	if c.present(1) {
		v, known, err := c.paramInts(1, "Repeats")
		if err != nil {
			return ValueInfo{}, err
		}
		if !known {
			if x.RankKnown {
				if n := c.paramLen(1); n >= 0 && n != int64(len(x.Shape)) {
					return ValueInfo{}, c.errf("Repeats input %q has %d entries, input %q has rank %d; they must be equal", c.n.Inputs[1], n, c.n.Inputs[0], len(x.Shape))
				}
				return shaped(x.DType, unknownDims(len(x.Shape))), nil
			}
			return ValueInfo{DType: x.DType}, nil
		}
		for _, r := range v {
			if r < 0 {
				return ValueInfo{}, c.errf("Repeats input %q holds %v; repeats must be >= 0", c.n.Inputs[1], v)
			}
		}
		reps = v
	}
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	if len(reps) != len(x.Shape) {
		return ValueInfo{}, c.errf("Repeats %v has %d entries, input %q has rank %d (shape %s); they must be equal", reps, len(reps), c.n.Inputs[0], len(x.Shape), fmtShape(x))
	}
	var a arith
	out := make([]Dim, len(reps))
	for i, r := range reps {
		d := x.Shape[i]
		switch {
		case r == 0:
			out[i] = knownDim(0)
		case d.Known():
			out[i] = knownDim(a.mul(d.Size, r))
		case r == 1:
			out[i] = d
		default:
			out[i] = unknownDim
		}
	}
	if a.overflow {
		return ValueInfo{}, c.overflow("the tiled shape")
	}
	return shaped(x.DType, out), nil
}

func (c *InferCtx) size() (ValueInfo, error) {
	v := shaped(Int64, []Dim{})
	if s, ok := c.in[0].StaticShape(); ok {
		v.Const = makeIntConst(c.outName(0), Int64, []int64{}, []int64{NumElements(s)})
	}
	return v, nil
}

// convertWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var convertWithout = Without{Accumulation: SumsNothing, RemapAxes: NoRemapYet, Decompose: Primitive, Noop: NoNoopSetting}
