package canon

import "fmt"

// The reduce family: the ten ONNX Reduce* ops (one Reduce struct, one kind
// per function), ArgMax/ArgMin, TopK and CumSum.

func init() {
	for _, d := range reduceOps() {
		Register(withReason(d, reduceWithout))
	}
}

// ---- typed attributes ----

// ReduceFn is the function a Reduce applies to each group of elements.
type ReduceFn uint8

const (
	ReduceSum ReduceFn = iota
	ReduceMean
	ReduceMax
	ReduceMin
	ReduceProd
	// ReduceL1 is sum(|x|).
	ReduceL1
	// ReduceL2 is sqrt(sum(x²)).
	ReduceL2
	// ReduceLogSum is log(sum(x)).
	ReduceLogSum
	// ReduceLogSumExp is log(sum(exp(x))).
	ReduceLogSumExp
	// ReduceSumSquare is sum(x²).
	ReduceSumSquare
)

var reduceNames = [...]string{ReduceSum: "ReduceSum", ReduceMean: "ReduceMean", ReduceMax: "ReduceMax", ReduceMin: "ReduceMin",
	ReduceProd: "ReduceProd", ReduceL1: "ReduceL1", ReduceL2: "ReduceL2", ReduceLogSum: "ReduceLogSum",
	ReduceLogSumExp: "ReduceLogSumExp", ReduceSumSquare: "ReduceSumSquare"}

// ReduceFns lists every reduce function.
func ReduceFns() []ReduceFn {
	out := make([]ReduceFn, len(reduceNames))
	for i := range out {
		out[i] = ReduceFn(i)
	}
	return out
}

// String is the ONNX op type of the function ("ReduceSum", ...).
func (f ReduceFn) String() string {
	if int(f) < len(reduceNames) {
		return reduceNames[f]
	}
	return fmt.Sprintf("Reduce(fn %d)", f)
}

// Reduce applies Fn over Axes of X. Axes empty (and no Axes input) reduces
// every axis. KeepDims keeps reduced axes as size 1.
//
// Axes computed at run time are the optional input Axes instead (a 1-D i64
// tensor); the attribute is then nil. An empty Axes input reduces every
// axis, or, with NoopWithEmptyAxes, returns X unchanged. NoopWithEmptyAxes
// is meaningful only with the Axes input (importers turn a constant empty
// axes list with noop into Identity).
//
// Integer data reduce exactly in their dtype (sums and products wrap); L2,
// LogSum and LogSumExp of integers are computed in floating point and
// truncated, Mean of integers divides with truncation, as ONNX Runtime
// does. A reduction over an empty set gives the function's identity: 0 for
// sums, 1 for products, the dtype's lowest value for Max (highest for
// Min), -inf for LogSum and LogSumExp.
type Reduce struct {
	Fn                ReduceFn
	Axes              []int64
	KeepDims          bool
	NoopWithEmptyAxes bool
}

func (r *Reduce) Kind() string { return r.Fn.String() }
func (*Reduce) Signature() Signature {
	return sig(1, inX, param("Axes"))
}

func (r *Reduce) AttrGiven(int) (string, bool) { return "Axes", len(r.Axes) > 0 }

// ArgReduce is ArgMax (Min false) or ArgMin: the int64 index of the largest
// (smallest) entry along Axis, the first one unless SelectLastIndex.
type ArgReduce struct {
	Min             bool
	Axis            int64
	KeepDims        bool
	SelectLastIndex bool
}

func (a *ArgReduce) Kind() string {
	if a.Min {
		return "ArgMin"
	}
	return "ArgMax"
}
func (*ArgReduce) Signature() Signature { return sig(1, inX) }

// TopK returns the K largest (Largest) or smallest entries along Axis and
// their int64 indices, sorted (Sorted) or in an unspecified order (written
// sorted here). Equal values keep their index order. The Indices output
// may be left out.
//
// A K computed at run time is the optional input K (a one-element i64
// tensor) instead; the attribute is then 0 and the output axis is a
// symbolic dim.
type TopK struct {
	Axis    int64
	K       int64
	Largest bool
	Sorted  bool
}

func (*TopK) Kind() string { return "TopK" }
func (*TopK) Signature() Signature {
	return Signature{Inputs: []InputSpec{inX, param("K")}, MinOutputs: 1, MaxOutputs: 2}
}

func (t *TopK) AttrGiven(int) (string, bool) { return "K", t.K != 0 }

// CumSum is the running sum of X along Axis: Exclusive leaves each entry
// out of its own sum, Reverse sums from the end. An axis computed at run
// time is the optional input Axis (an i32 or i64 scalar) instead; the
// attribute is then 0.
type CumSum struct {
	Axis      int64
	Exclusive bool
	Reverse   bool
}

func (*CumSum) Kind() string         { return "CumSum" }
func (*CumSum) Signature() Signature { return sig(1, inX, param("Axis")) }

func (s *CumSum) AttrGiven(int) (string, bool) { return "Axis", s.Axis != 0 }

// ---- definitions ----

var reduceSummary = [...]string{
	ReduceSum: "sum", ReduceMean: "mean", ReduceMax: "maximum", ReduceMin: "minimum", ReduceProd: "product",
	ReduceL1: "sum of absolute values", ReduceL2: "Euclidean norm", ReduceLogSum: "log of the sum",
	ReduceLogSumExp: "log of the sum of exponentials", ReduceSumSquare: "sum of squares",
}

// reduceExample gives each function an example exercising its attributes;
// the log reductions read positive constants.
func reduceExample(fn ReduceFn) Example {
	op := &Reduce{Fn: fn}
	x := exampleX
	switch fn {
	case ReduceSum:
		op.Axes = []int64{1}
	case ReduceMean:
		op.Axes, op.KeepDims = []int64{2, 3}, true
	case ReduceMax:
		op.Axes, op.KeepDims = []int64{1, 3}, true
	case ReduceMin:
		op.KeepDims = true
	case ReduceProd:
		op.Axes = []int64{2}
	case ReduceL1:
		op.Axes, op.KeepDims = []int64{1}, true
	case ReduceL2:
		op.Axes = []int64{2, 3}
	case ReduceLogSum:
		x = exampleF32(1, 4, 5, 5)
		x.Const = positive(x.Const)
		op.Axes = []int64{1}
	case ReduceLogSumExp:
		op.Axes, op.KeepDims = []int64{3}, true
	case ReduceSumSquare:
		op.Axes = []int64{0, 2}
	}
	return Example{Op: op, Inputs: []ExampleInput{x}}
}

func reduceOps() []*OpDef {
	var defs []*OpDef
	for _, fn := range ReduceFns() {
		defs = append(defs, &OpDef{
			Kind: fn.String(), Summary: reduceSummary[fn] + " over the given axes (constant or run-time), integers exact",
			New:   func() Op { return &Reduce{Fn: fn, KeepDims: true} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.reduce(c.n.Op.(*Reduce))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Reduce)
				if int(op.Fn) >= len(reduceNames) {
					return c.Errorf("unknown reduce function %d", op.Fn)
				}
				if op.NoopWithEmptyAxes && !c.HasInput(1) {
					return c.Errorf("NoopWithEmptyAxes is set without an Axes input; with constant axes write Identity instead")
				}
				return nil
			},
			Example:    func() Example { return reduceExample(fn) },
			HalfUnsafe: fn.halfUnsafe(),
			RemapAxes:  reduceRemap,
		})
	}
	for _, isMin := range []bool{false, true} {
		kind := (&ArgReduce{Min: isMin}).Kind()
		defs = append(defs, &OpDef{
			Kind: kind, Summary: "int64 index of the " + map[bool]string{false: "largest", true: "smallest"}[isMin] + " entry along one axis (first or last)",
			New:   func() Op { return &ArgReduce{Min: isMin, KeepDims: true} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.argReduce(c.n.Op.(*ArgReduce))) },
			Example: func() Example {
				return Example{Op: &ArgReduce{Min: isMin, Axis: 1, KeepDims: !isMin, SelectLastIndex: isMin}, Inputs: []ExampleInput{exampleX}}
			},
		})
	}
	defs = append(defs, &OpDef{
		Kind: "TopK", Summary: "the k largest or smallest entries along one axis and their int64 indices (constant or run-time k)",
		HalfUnsafe: "ties among float16-rounded values reorder the indices",
		New:        func() Op { return &TopK{Axis: -1, Largest: true, Sorted: true} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return c.topK(c.n.Op.(*TopK)) },
		Check: func(c *CheckCtx) error {
			if k := c.N.Op.(*TopK).K; k < 0 {
				return c.Errorf("K is %d, must be >= 0", k)
			}
			return nil
		},
		Example: func() Example {
			return Example{Op: &TopK{Axis: 1, K: 3, Largest: false, Sorted: true}, Inputs: []ExampleInput{exampleX}, Outputs: 2}
		},
	}, &OpDef{
		Kind: "CumSum", Summary: "running sum along one axis, inclusive or exclusive, forward or reversed",
		HalfUnsafe: "running sums lose float16's 11-bit precision",
		New:        func() Op { return &CumSum{} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.cumSum(c.n.Op.(*CumSum))) },
		Example: func() Example {
			return Example{Op: &CumSum{Axis: 2, Exclusive: true, Reverse: true}, Inputs: []ExampleInput{exampleX}}
		},
	})
	return defs
}

// ---- inference ----

// reduceDType checks X's dtype for fn: Max and Min take every numeric type
// and bool, the others every numeric type.
func (c *InferCtx) reduceDType(fn ReduceFn) error {
	if dt := c.in[0].DType; dt == Bool && fn != ReduceMax && fn != ReduceMin {
		return c.errf("input X %q is bool; %s needs numbers", c.n.Inputs[0], fn)
	}
	return nil
}

func (c *InferCtx) reduce(op *Reduce) (ValueInfo, error) {
	if err := c.reduceDType(op.Fn); err != nil {
		return ValueInfo{}, err
	}
	x := c.in[0]
	if !c.present(1) {
		return c.reduceAxes(op.Axes, op.KeepDims)
	}
	axes, known, err := c.paramInts(1, "Axes")
	if err != nil {
		return ValueInfo{}, err
	}
	if known {
		if len(axes) == 0 {
			if op.NoopWithEmptyAxes {
				return shaped2(x), nil
			}
			axes = nil
		}
		return c.reduceAxes(axes, op.KeepDims)
	}
	n := c.paramLen(1)
	switch {
	case n == 0 && op.NoopWithEmptyAxes:
		return shaped2(x), nil
	case n == 0:
		return c.reduceAxes(nil, op.KeepDims)
	case !x.RankKnown:
		return ValueInfo{DType: x.DType}, nil
	case op.KeepDims:
		// Same rank; which axes become 1 is known only at run time.
		out := cloneDims(x.Shape)
		for i, d := range out {
			if !(d.Known() && d.Size == 1) {
				out[i] = unknownDim
			}
		}
		return shaped(x.DType, out), nil
	case n > 0 && n <= int64(len(x.Shape)):
		return shaped(x.DType, unknownDims(len(x.Shape)-int(n))), nil
	case n > int64(len(x.Shape)):
		return ValueInfo{}, c.errf("Axes input %q has %d entries, more than the rank %d of input X", c.n.Inputs[1], n, len(x.Shape))
	}
	return ValueInfo{DType: x.DType}, nil
}

// reduceAxes infers a reduction over the given axes (nil: every axis).
func (c *InferCtx) reduceAxes(axes []int64, keep bool) (ValueInfo, error) {
	x := c.in[0]
	all := len(axes) == 0
	if !x.RankKnown {
		if all && !keep {
			return shaped(x.DType, []Dim{}), nil
		}
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape)
	reduce := make([]bool, r)
	if all {
		for i := range reduce {
			reduce[i] = true
		}
	}
	for _, a := range axes {
		ax, ok := normAxis(a, r)
		if !ok {
			return ValueInfo{}, c.errf("axis %d is out of range for input X of shape %s", a, fmtShape(x))
		}
		if reduce[ax] {
			return ValueInfo{}, c.errf("axis %d is listed twice in Axes %v", ax, axes)
		}
		reduce[ax] = true
	}
	out := []Dim{}
	for i, d := range x.Shape {
		switch {
		case !reduce[i]:
			out = append(out, d)
		case keep:
			out = append(out, knownDim(1))
		}
	}
	return shaped(x.DType, out), nil
}

func (c *InferCtx) argReduce(op *ArgReduce) (ValueInfo, error) {
	x := c.in[0]
	if x.DType == Bool {
		return ValueInfo{}, c.errf("input X %q is bool; %s needs numbers", c.n.Inputs[0], op.Kind())
	}
	if !x.RankKnown {
		return ValueInfo{DType: Int64}, nil
	}
	a, ok := normAxis(op.Axis, len(x.Shape))
	if !ok {
		return ValueInfo{}, c.errf("axis %d is out of range for input X of shape %s", op.Axis, fmtShape(x))
	}
	out := cloneDims(x.Shape)
	if op.KeepDims {
		out[a] = knownDim(1)
	} else {
		out = append(out[:a], out[a+1:]...)
	}
	return shaped(Int64, out), nil
}

func (c *InferCtx) topK(op *TopK) ([]ValueInfo, error) {
	x := c.in[0]
	if x.DType == Bool {
		return nil, c.errf("input X %q is bool; TopK needs numbers", c.n.Inputs[0])
	}
	k := knownDim(op.K)
	if c.present(1) {
		p := c.in[1]
		if p.DType != Undefined && p.DType != Int64 {
			return nil, c.errf("K %q is %s, want i64", c.n.Inputs[1], p.DType)
		}
		if s, ok := p.StaticShape(); ok && NumElements(s) != 1 {
			return nil, c.errf("K %q has shape %s, want one element", c.n.Inputs[1], fmtShape(p))
		}
		base := c.n.Name
		if base == "" {
			base = c.outName(0)
		}
		k = Dim{Size: -1, Param: base + "_k"}
		if t := constAny(p); t != nil {
			if v, err := t.Int64s(); err == nil && len(v) == 1 {
				if v[0] < 0 {
					return nil, c.errf("K %q is %d, must be >= 0", c.n.Inputs[1], v[0])
				}
				k = knownDim(v[0])
			}
		}
	}
	if !x.RankKnown {
		return []ValueInfo{{DType: x.DType}, {DType: Int64}}, nil
	}
	a, ok := normAxis(op.Axis, len(x.Shape))
	if !ok {
		return nil, c.errf("axis %d is out of range for input X of shape %s", op.Axis, fmtShape(x))
	}
	if d := x.Shape[a]; d.Known() && k.Known() && k.Size > d.Size {
		return nil, c.errf("K is %d, larger than axis %d of input X %s", k.Size, a, fmtShape(x))
	}
	out := cloneDims(x.Shape)
	out[a] = k
	return []ValueInfo{shaped(x.DType, out), shaped(Int64, cloneDims(out))}, nil
}

func (c *InferCtx) cumSum(op *CumSum) (ValueInfo, error) {
	x := c.in[0]
	if x.DType == Bool {
		return ValueInfo{}, c.errf("input X %q is bool; CumSum needs numbers", c.n.Inputs[0])
	}
	axis, known := op.Axis, true
	if c.present(1) {
		p := c.in[1]
		if p.DType != Undefined && p.DType != Int64 && p.DType != Int32 {
			return ValueInfo{}, c.errf("Axis %q is %s, want i32 or i64", c.n.Inputs[1], p.DType)
		}
		if s, ok := p.StaticShape(); ok && NumElements(s) != 1 {
			return ValueInfo{}, c.errf("Axis %q has shape %s, want a scalar", c.n.Inputs[1], fmtShape(p))
		}
		known = false
		if k := constAny(p); k != nil {
			if v, err := k.Int64s(); err == nil && len(v) == 1 {
				axis, known = v[0], true
			}
		}
	}
	if x.RankKnown && known {
		if _, ok := normAxis(axis, len(x.Shape)); !ok {
			return ValueInfo{}, c.errf("axis %d is out of range for input X of shape %s", axis, fmtShape(x))
		}
	}
	return shaped2(x), nil
}

// halfUnsafe is why float16 breaks fn: every function but max and min
// accumulates over the reduced axes.
func (fn ReduceFn) halfUnsafe() string {
	if fn == ReduceMax || fn == ReduceMin {
		return ""
	}
	return "accumulates over the reduced axes"
}

// reduceWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var reduceWithout = Without{Accumulation: SumsNoProducts, RemapAxes: NoRemapYet, Decompose: Primitive, Noop: NoNoopSetting}
