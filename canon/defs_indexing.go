package canon

import "fmt"

// The indexing family: GatherElements, GatherND, ScatterElements,
// ScatterND, OneHot, Compress and Trilu. Indices follow ONNX: negative
// values count from the end of their axis; an index out of range is a
// run-time error of the node (OneHot excepted: ONNX gives such an entry
// all off values).

func init() {
	for _, d := range indexingOps() {
		Register(withReason(d, indexingWithout))
	}
}

// ---- typed attributes ----

// GatherElements takes Data's entries at Indices along Axis: the output
// has Indices' shape, out[i][j][k] = Data[Indices[i][j][k]][j][k] for Axis 0.
type GatherElements struct {
	Axis int64
}

func (*GatherElements) Kind() string { return "GatherElements" }
func (*GatherElements) Signature() Signature {
	return sig(1, InputSpec{Name: "Data"}, InputSpec{Name: "Indices"})
}

// GatherND gathers slices of Data addressed by the last axis of Indices,
// with the first BatchDims axes of Data and Indices walked together.
type GatherND struct {
	BatchDims int64
}

func (*GatherND) Kind() string { return "GatherND" }
func (*GatherND) Signature() Signature {
	return sig(1, InputSpec{Name: "Data"}, InputSpec{Name: "Indices"})
}

// ScatterReduction is how a scatter combines an update with the entry it
// lands on.
type ScatterReduction uint8

const (
	// ScatterNone overwrites (with duplicate indices the last update wins).
	ScatterNone ScatterReduction = iota
	ScatterAdd
	ScatterMul
	ScatterMax
	ScatterMin
)

var scatterReductionNames = [...]string{ScatterNone: "none", ScatterAdd: "add", ScatterMul: "mul", ScatterMax: "max", ScatterMin: "min"}

// String is ONNX's spelling of the reduction.
func (r ScatterReduction) String() string {
	if int(r) < len(scatterReductionNames) {
		return scatterReductionNames[r]
	}
	return fmt.Sprintf("ScatterReduction(%d)", r)
}

// ParseScatterReduction reads ONNX's spelling ("none", "add", "mul", "max",
// "min").
func ParseScatterReduction(s string) (ScatterReduction, bool) {
	for i, n := range scatterReductionNames {
		if n == s {
			return ScatterReduction(i), true
		}
	}
	return 0, false
}

// ScatterElements is a copy of Data with Updates written at Indices along
// Axis (Indices and Updates have the same shape), combined by Reduction.
// ONNX's older Scatter is this op with ScatterNone.
type ScatterElements struct {
	Axis      int64
	Reduction ScatterReduction
}

func (*ScatterElements) Kind() string { return "ScatterElements" }
func (*ScatterElements) Signature() Signature {
	return sig(1, InputSpec{Name: "Data"}, InputSpec{Name: "Indices"}, InputSpec{Name: "Updates"})
}

// ScatterND is a copy of Data with the slices Updates written at the index
// tuples on the last axis of Indices, combined by Reduction.
type ScatterND struct {
	Reduction ScatterReduction
}

func (*ScatterND) Kind() string { return "ScatterND" }
func (*ScatterND) Signature() Signature {
	return sig(1, InputSpec{Name: "Data"}, InputSpec{Name: "Indices"}, InputSpec{Name: "Updates"})
}

// OneHot inserts an axis of size Depth at Axis (counted in the output's
// rank): entry d is Values[1] where the index equals d and Values[0]
// elsewhere. Indices of any numeric dtype are truncated to integers; with
// NegativeIndices (ONNX opset 11 on) an index in [-Depth, 0) counts from
// the end, otherwise it is out of range. Out-of-range indices give all
// Values[0].
//
// A depth computed at run time is the optional input Depth (a one-element
// numeric tensor) instead; the attribute is then 0.
type OneHot struct {
	Axis            int64
	Depth           int64
	NegativeIndices bool
}

func (*OneHot) Kind() string { return "OneHot" }
func (*OneHot) Signature() Signature {
	return sig(1, InputSpec{Name: "Indices"}, InputSpec{Name: "Values"}, param("Depth"))
}

func (o *OneHot) AttrGiven(int) (string, bool) { return "Depth", o.Depth != 0 }

// Compress keeps the slices of X along Axis whose entry in the 1-D bool
// Condition is true (entries past the condition's end are dropped). With
// Flatten, X is flattened first and Axis is unused. The output size along
// the axis is known only when the condition is.
type Compress struct {
	Axis    int64
	Flatten bool
}

func (*Compress) Kind() string { return "Compress" }
func (*Compress) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "Condition"})
}

// Trilu keeps the upper (Upper) or lower triangle of the last two axes of
// X, from diagonal K (positive: above the main diagonal), and zeroes the
// rest. A K computed at run time is the optional input K (an i64 scalar);
// the attribute is then 0.
type Trilu struct {
	Upper bool
	K     int64
}

func (*Trilu) Kind() string         { return "Trilu" }
func (*Trilu) Signature() Signature { return sig(1, inX, param("K")) }

func (o *Trilu) AttrGiven(int) (string, bool) { return "K", o.K != 0 }

// ---- definitions ----

func indexingOps() []*OpDef {
	return []*OpDef{
		{
			Kind: "GatherElements", Summary: "entries of Data at Indices along one axis; output has Indices' shape",
			New: func() Op { return &GatherElements{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				return one(c.gatherElements(c.n.Op.(*GatherElements).Axis, false))
			},
			Example: func() Example {
				idx := NewInt64Tensor("", []int64{1, 2, 5, 5}, exampleIndices(50, -4, 4))
				return Example{Op: &GatherElements{Axis: 1}, Inputs: []ExampleInput{exampleX, {DType: Int64, Shape: idx.Shape, Const: idx}}}
			},
		},
		{
			Kind: "GatherND", Summary: "slices of Data at index tuples on Indices' last axis, with batch axes",
			New:   func() Op { return &GatherND{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.gatherND(c.n.Op.(*GatherND))) },
			Check: func(c *CheckCtx) error {
				if b := c.N.Op.(*GatherND).BatchDims; b < 0 {
					return c.Errorf("BatchDims is %d, must be >= 0", b)
				}
				return nil
			},
			Example: func() Example {
				// Batch axis 0 of size 1; tuples of 2 into (C, H); W kept.
				idx := NewInt64Tensor("", []int64{1, 3, 2}, []int64{1, -1, 3, 0, -4, 2})
				return Example{Op: &GatherND{BatchDims: 1}, Inputs: []ExampleInput{exampleX, {DType: Int64, Shape: idx.Shape, Const: idx}}}
			},
		},
		{
			Kind: "ScatterElements", Summary: "copy of Data with Updates written at Indices along one axis (none, add, mul, max or min)",
			New:   func() Op { return &ScatterElements{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.scatterElements(c.n.Op.(*ScatterElements))) },
			Check: func(c *CheckCtx) error { return checkReduction(c, c.N.Op.(*ScatterElements).Reduction) },
			Example: func() Example {
				// Distinct indices: with Reduction none duplicates leave the
				// result to the order of writes.
				idx := NewInt64Tensor("", []int64{1, 2, 5, 5}, distinctRows(2, 25, 4))
				return Example{Op: &ScatterElements{Axis: 1}, Inputs: []ExampleInput{exampleX, {DType: Int64, Shape: idx.Shape, Const: idx}, exampleF32(1, 2, 5, 5)}}
			},
		},
		{
			Kind: "ScatterND", Summary: "copy of Data with slices Updates written at index tuples (none, add, mul, max or min)",
			New:   func() Op { return &ScatterND{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.scatterND(c.n.Op.(*ScatterND))) },
			Check: func(c *CheckCtx) error { return checkReduction(c, c.N.Op.(*ScatterND).Reduction) },
			Example: func() Example {
				idx := NewInt64Tensor("", []int64{3, 2}, []int64{0, 1, 0, -1, 0, 2})
				return Example{Op: &ScatterND{}, Inputs: []ExampleInput{exampleX, {DType: Int64, Shape: idx.Shape, Const: idx}, exampleF32(3, 5, 5)}}
			},
		},
		{
			Kind: "OneHot", Summary: "one-hot encoding: a new axis of size depth holding on/off values",
			New:   func() Op { return &OneHot{Axis: -1, NegativeIndices: true} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.oneHot(c.n.Op.(*OneHot))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*OneHot)
				if !c.HasInput(2) && op.Depth < 1 {
					return c.Errorf("Depth is %d and there is no Depth input; depth must be >= 1", op.Depth)
				}
				if op.Depth < 0 {
					return c.Errorf("Depth is %d, must be >= 1", op.Depth)
				}
				return nil
			},
			Example: func() Example {
				vals := NewFloat32Tensor("", []int64{2}, []float32{-0.5, 2})
				return Example{Op: &OneHot{Axis: 1, Depth: 4, NegativeIndices: true},
					Inputs: []ExampleInput{{DType: Int64, Shape: []int64{2, 3}}, {DType: Float32, Shape: []int64{2}, Const: vals}}}
			},
		},
		{
			Kind: "Compress", Summary: "slices along one axis (or elements of the flattened input) where a bool condition is true",
			New:   func() Op { return &Compress{Flatten: true} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.compress(c.n.Op.(*Compress))) },
			Example: func() Example {
				cond := &Tensor{DType: Bool, Shape: []int64{3}, Data: []byte{1, 0, 1}}
				return Example{Op: &Compress{Axis: 1}, Inputs: []ExampleInput{exampleX, {DType: Bool, Shape: cond.Shape, Const: cond}}}
			},
		},
		{
			Kind: "Trilu", Summary: "upper or lower triangle of the last two axes from a diagonal, the rest zero",
			Decompose: triluExpand,
			New:       func() Op { return &Trilu{Upper: true} },
			Infer:     func(c *InferCtx) ([]ValueInfo, error) { return one(c.trilu()) },
			Example: func() Example {
				return Example{Op: &Trilu{Upper: false, K: 1}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 4, 6}}}}
			},
		},
	}
}

// exampleIndices is n deterministic indices in [lo, hi).
func exampleIndices(n int, lo, hi int64) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = lo + int64(i*7+3)%(hi-lo)
	}
	return v
}

// distinctRows is a (rows, cols) index block along axis 0 of a size-dim
// axis whose indices are distinct within each column, some negative.
func distinctRows(rows, cols int, dim int64) []int64 {
	v := make([]int64, rows*cols)
	for r := range rows {
		for c := range cols {
			x := (int64(c) + int64(r)*(dim/int64(rows))) % dim
			if (c+r)%3 == 0 {
				x -= dim
			}
			v[r*cols+c] = x
		}
	}
	return v
}

func checkReduction(c *CheckCtx, r ScatterReduction) error {
	if int(r) >= len(scatterReductionNames) {
		return c.Errorf("unknown scatter reduction %d", r)
	}
	return nil
}

// ---- inference ----

// needIndices fails unless input i is an i32 or i64 tensor.
func (c *InferCtx) needIndices(i int) error {
	if dt := c.in[i].DType; dt != Undefined && dt != Int64 && dt != Int32 {
		return c.errf("%s %q are %s, want i32 or i64", c.slot(i), c.n.Inputs[i], dt)
	}
	return nil
}

// constIndicesInRange checks constant indices against a known axis size.
func (c *InferCtx) constIndicesInRange(i int, size Dim, axis int) error {
	k := constOf(c.in[i])
	if k == nil || !size.Known() {
		return nil
	}
	v, err := k.Int64s()
	if err != nil {
		return c.errf("%s %q: %v", c.slot(i), c.n.Inputs[i], err)
	}
	for _, x := range v {
		if x < -size.Size || x >= size.Size {
			return c.errf("index %d in %s %q is out of range for axis %d of size %d", x, c.slot(i), c.n.Inputs[i], axis, size.Size)
		}
	}
	return nil
}

// gatherElements infers GatherElements (scatter: ScatterElements' Data and
// Indices, whose output is Data's type).
func (c *InferCtx) gatherElements(axis int64, scatter bool) (ValueInfo, error) {
	data, idx := c.in[0], c.in[1]
	if err := c.needIndices(1); err != nil {
		return ValueInfo{}, err
	}
	if data.RankKnown && len(data.Shape) == 0 {
		return ValueInfo{}, c.errf("Data %q is a scalar; %s needs rank >= 1", c.n.Inputs[0], opKind(c.n.Op))
	}
	r := -1
	if data.RankKnown {
		r = len(data.Shape)
	} else if idx.RankKnown {
		r = len(idx.Shape)
	}
	if data.RankKnown && idx.RankKnown && len(idx.Shape) != len(data.Shape) {
		return ValueInfo{}, c.errf("Indices %q have rank %d, Data %q rank %d; they must be equal", c.n.Inputs[1], len(idx.Shape), c.n.Inputs[0], len(data.Shape))
	}
	if r >= 0 {
		a, ok := normAxis(axis, r)
		if !ok {
			return ValueInfo{}, c.errf("axis %d is out of range for rank %d", axis, r)
		}
		if err := c.constIndicesInRange(1, dimAt(data, a), a); err != nil {
			return ValueInfo{}, err
		}
	}
	if scatter {
		return shaped2(data), nil
	}
	if !idx.RankKnown {
		return ValueInfo{DType: data.DType}, nil
	}
	return shaped(data.DType, cloneDims(idx.Shape)), nil
}

// constAny is v's content, of any dtype and size, when it is well formed
// and agrees with v's type.
func constAny(v ValueInfo) *Tensor {
	t := v.Const
	if t == nil || !v.RankKnown || len(t.Shape) != len(v.Shape) || t.CheckData() != nil {
		return nil
	}
	for i, d := range v.Shape {
		if d.Size != t.Shape[i] {
			return nil
		}
	}
	return t
}

// shaped2 is v's type without its name or content.
func shaped2(v ValueInfo) ValueInfo {
	return ValueInfo{DType: v.DType, Shape: cloneDims(v.Shape), RankKnown: v.RankKnown}
}

func (c *InferCtx) gatherND(op *GatherND) (ValueInfo, error) {
	data, idx := c.in[0], c.in[1]
	if err := c.needIndices(1); err != nil {
		return ValueInfo{}, err
	}
	b := int(op.BatchDims)
	if !data.RankKnown || !idx.RankKnown {
		return ValueInfo{DType: data.DType}, nil
	}
	r, q := len(data.Shape), len(idx.Shape)
	if q < 1 || r < 1 {
		return ValueInfo{}, c.errf("Data %q and Indices %q need rank >= 1 (shapes %s and %s)", c.n.Inputs[0], c.n.Inputs[1], fmtShape(data), fmtShape(idx))
	}
	if b >= q || b >= r {
		return ValueInfo{}, c.errf("BatchDims %d must be below the ranks of Data (%d) and Indices (%d)", b, r, q)
	}
	for i := range b {
		if d, e := data.Shape[i], idx.Shape[i]; d.Known() && e.Known() && d.Size != e.Size {
			return ValueInfo{}, c.errf("batch axis %d has size %d in Data %q but %d in Indices %q", i, d.Size, c.n.Inputs[0], e.Size, c.n.Inputs[1])
		}
	}
	k := idx.Shape[q-1]
	if !k.Known() {
		return ValueInfo{DType: data.DType}, nil
	}
	if k.Size > int64(r-b) {
		return ValueInfo{}, c.errf("Indices %q address %d axes, but Data %q has only %d after its %d batch axes", c.n.Inputs[1], k.Size, c.n.Inputs[0], r-b, b)
	}
	out := append(cloneDims(idx.Shape[:q-1]), data.Shape[b+int(k.Size):]...)
	return shaped(data.DType, out), nil
}

func (c *InferCtx) scatterElements(op *ScatterElements) (ValueInfo, error) {
	if err := c.sameDType(0, 2); err != nil {
		return ValueInfo{}, err
	}
	idx, upd := c.in[1], c.in[2]
	if idx.RankKnown && upd.RankKnown {
		if len(idx.Shape) != len(upd.Shape) {
			return ValueInfo{}, c.errf("Indices %q %s and Updates %q %s must have the same shape", c.n.Inputs[1], fmtShape(idx), c.n.Inputs[2], fmtShape(upd))
		}
		for i := range idx.Shape {
			if a, b := idx.Shape[i], upd.Shape[i]; a.Known() && b.Known() && a.Size != b.Size {
				return ValueInfo{}, c.errf("Indices %q %s and Updates %q %s must have the same shape", c.n.Inputs[1], fmtShape(idx), c.n.Inputs[2], fmtShape(upd))
			}
		}
	}
	return c.gatherElements(op.Axis, true)
}

func (c *InferCtx) scatterND(op *ScatterND) (ValueInfo, error) {
	if err := c.sameDType(0, 2); err != nil {
		return ValueInfo{}, err
	}
	if err := c.needIndices(1); err != nil {
		return ValueInfo{}, err
	}
	data, idx, upd := c.in[0], c.in[1], c.in[2]
	if data.RankKnown && idx.RankKnown && upd.RankKnown && len(idx.Shape) > 0 && idx.Shape[len(idx.Shape)-1].Known() {
		r, q := len(data.Shape), len(idx.Shape)
		k := int(idx.Shape[q-1].Size)
		if k > r {
			return ValueInfo{}, c.errf("Indices %q address %d axes, Data %q has %d", c.n.Inputs[1], k, c.n.Inputs[0], r)
		}
		want := append(cloneDims(idx.Shape[:q-1]), data.Shape[k:]...)
		bad := len(upd.Shape) != len(want)
		for i := 0; !bad && i < len(want); i++ {
			bad = want[i].Known() && upd.Shape[i].Known() && want[i].Size != upd.Shape[i].Size
		}
		if bad {
			return ValueInfo{}, c.errf("Updates %q have shape %s, want %s (Indices' shape without its last axis, then Data's axes from %d)", c.n.Inputs[2], fmtShape(upd), fmtDims(want), k)
		}
	}
	return shaped2(data), nil
}

func (c *InferCtx) oneHot(op *OneHot) (ValueInfo, error) {
	idx, vals := c.in[0], c.in[1]
	if idx.DType == Bool {
		return ValueInfo{}, c.errf("Indices %q are bool, want a numeric type", c.n.Inputs[0])
	}
	if vals.RankKnown && (len(vals.Shape) != 1 || (vals.Shape[0].Known() && vals.Shape[0].Size != 2)) {
		return ValueInfo{}, c.errf("Values %q have shape %s, want [2] (off value, on value)", c.n.Inputs[1], fmtShape(vals))
	}
	depth := knownDim(op.Depth)
	if c.present(2) {
		p := c.in[2]
		if p.DType == Bool {
			return ValueInfo{}, c.errf("Depth %q is bool, want a number", c.n.Inputs[2])
		}
		if s, ok := p.StaticShape(); ok && NumElements(s) != 1 {
			return ValueInfo{}, c.errf("Depth %q has shape %s, want one element", c.n.Inputs[2], fmtShape(p))
		}
		depth = Dim{Size: -1, Param: c.n.Name + "_depth"}
		if k := constAny(p); k != nil {
			if v, err := k.Float64s(); err == nil && len(v) == 1 {
				if int64(v[0]) < 1 {
					return ValueInfo{}, c.errf("Depth %q is %v; depth must be >= 1", c.n.Inputs[2], v[0])
				}
				depth = knownDim(int64(v[0]))
			}
		}
	}
	if !idx.RankKnown {
		return ValueInfo{DType: vals.DType}, nil
	}
	r := len(idx.Shape)
	a, ok := normAxis(op.Axis, r+1)
	if !ok {
		return ValueInfo{}, c.errf("axis %d is out of range for an output of rank %d", op.Axis, r+1)
	}
	out := append(append(cloneDims(idx.Shape[:a]), depth), idx.Shape[a:]...)
	return shaped(vals.DType, out), nil
}

func (c *InferCtx) compress(op *Compress) (ValueInfo, error) {
	x, cond := c.in[0], c.in[1]
	if cond.DType != Undefined && cond.DType != Bool {
		return ValueInfo{}, c.errf("Condition %q is %s, want bool", c.n.Inputs[1], cond.DType)
	}
	if cond.RankKnown && len(cond.Shape) != 1 {
		return ValueInfo{}, c.errf("Condition %q has shape %s, want a 1-D tensor", c.n.Inputs[1], fmtShape(cond))
	}
	// The kept count is known only from a constant condition.
	count := Dim{Size: -1, Param: c.n.Name + "_count"}
	if k := constAny(cond); k != nil {
		v, err := k.Int64s()
		if err != nil {
			return ValueInfo{}, c.errf("Condition %q: %v", c.n.Inputs[1], err)
		}
		n := int64(0)
		for _, b := range v {
			if b != 0 {
				n++
			}
		}
		count = knownDim(n)
	}
	limit := func(size Dim) error {
		if size.Known() && cond.RankKnown && cond.Shape[0].Known() && cond.Shape[0].Size > size.Size {
			return c.errf("Condition %q has %d entries, more than the %d it selects from", c.n.Inputs[1], cond.Shape[0].Size, size.Size)
		}
		return nil
	}
	if op.Flatten {
		if s, ok := x.StaticShape(); ok {
			if err := limit(knownDim(NumElements(s))); err != nil {
				return ValueInfo{}, err
			}
		}
		return shaped(x.DType, []Dim{count}), nil
	}
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	a, ok := normAxis(op.Axis, len(x.Shape))
	if !ok {
		return ValueInfo{}, c.errf("axis %d is out of range for input %q of shape %s", op.Axis, c.n.Inputs[0], fmtShape(x))
	}
	if err := limit(x.Shape[a]); err != nil {
		return ValueInfo{}, err
	}
	out := cloneDims(x.Shape)
	out[a] = count
	return shaped(x.DType, out), nil
}

func (c *InferCtx) trilu() (ValueInfo, error) {
	x := c.in[0]
	if x.RankKnown && len(x.Shape) < 2 {
		return ValueInfo{}, c.errf("input %q has shape %s; Trilu needs rank >= 2", c.n.Inputs[0], fmtShape(x))
	}
	if c.present(1) {
		k := c.in[1]
		if k.DType != Undefined && k.DType != Int64 {
			return ValueInfo{}, c.errf("K %q is %s, want i64", c.n.Inputs[1], k.DType)
		}
		if s, ok := k.StaticShape(); ok && NumElements(s) != 1 {
			return ValueInfo{}, c.errf("K %q has shape %s, want a scalar", c.n.Inputs[1], fmtShape(k))
		}
	}
	return shaped2(x), nil
}

// indexingWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var indexingWithout = Without{Accumulation: SumsNothing, RemapAxes: NoRemapYet, Decompose: Primitive, Noop: NoNoopSetting}
