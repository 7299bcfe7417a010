package canon

import (
	"math"
)

// The generate family: NonZero, Unique, Range, ConstantOfShape, EyeLike,
// DepthToSpace, SpaceToDepth and ReverseSequence. NonZero and Unique (and
// Range with run-time bounds) have outputs whose length is known only when
// the model runs: inference gives that axis a named symbolic Dim
// ("<node>_count"), never a guess.

func init() {
	for _, d := range generateOps() {
		Register(withReason(d, generateWithout))
	}
}

// ---- typed attributes ----

// NonZero lists the coordinates of X's nonzero entries: an i64 tensor of
// shape (rank, count), coordinates in row-major order.
type NonZero struct{}

func (*NonZero) Kind() string         { return "NonZero" }
func (*NonZero) Signature() Signature { return sig(1, inX) }

// Unique finds X's distinct entries (Flatten) or distinct slices along
// Axis. Outputs: Y the unique values, Indices the first occurrence of each
// in X, InverseIndices where each entry (slice) of X went in Y, Counts how
// often each occurs. Sorted orders Y ascending (slices lexicographically);
// otherwise Y is in order of first occurrence.
type Unique struct {
	Sorted  bool
	Flatten bool
	Axis    int64
}

func (*Unique) Kind() string { return "Unique" }
func (*Unique) Signature() Signature {
	return Signature{Inputs: []InputSpec{inX}, MinOutputs: 1, MaxOutputs: 4}
}

// Range is the sequence Start, Start+Delta, ... up to (excluding) Limit:
// max(ceil((Limit-Start)/Delta), 0) entries of the inputs' dtype. The three
// inputs are scalars; the output length is static when all three are
// constants and a symbolic dim otherwise.
type Range struct{}

func (*Range) Kind() string { return "Range" }
func (*Range) Signature() Signature {
	return sig(1, InputSpec{Name: "Start"}, InputSpec{Name: "Limit"}, InputSpec{Name: "Delta"})
}

// ConstantOfShape is a tensor of the given shape filled with Value (a
// one-element tensor whose dtype is the output's). The shape is the Shape
// attribute (empty: a scalar), or the optional run-time input Shape (a 1-D
// i64 tensor) when it is computed at run time.
type ConstantOfShape struct {
	Value *Tensor
	Shape []int64
}

func (*ConstantOfShape) Kind() string         { return "ConstantOfShape" }
func (*ConstantOfShape) Signature() Signature { return sig(1, param("Shape")) }

func (o *ConstantOfShape) AttrGiven(int) (string, bool) { return "Shape", len(o.Shape) > 0 }

// EyeLike is a 2-D tensor of X's shape and dtype DType with ones on diagonal
// K (positive: above the main diagonal) and zeros elsewhere. ONNX's default
// (X's dtype) is resolved at import.
type EyeLike struct {
	K     int64
	DType DType
}

func (*EyeLike) Kind() string         { return "EyeLike" }
func (*EyeLike) Signature() Signature { return sig(1, inX) }

// DepthToSpace moves blocks of Blocksize² channels into Blocksize×Blocksize
// spatial blocks: (N, C, H, W) -> (N, C/b², H·b, W·b). CRD reads the
// channels as (C/b², b, b) (PyTorch's pixel_shuffle); otherwise DCR, as
// (b, b, C/b²).
type DepthToSpace struct {
	Blocksize int64
	CRD       bool
}

func (*DepthToSpace) Kind() string         { return "DepthToSpace" }
func (*DepthToSpace) Signature() Signature { return sig(1, inX) }

// SpaceToDepth is DepthToSpace's DCR inverse: (N, C, H, W) ->
// (N, C·b², H/b, W/b), channel index (bh·b + bw)·C + c.
type SpaceToDepth struct {
	Blocksize int64
}

func (*SpaceToDepth) Kind() string         { return "SpaceToDepth" }
func (*SpaceToDepth) Signature() Signature { return sig(1, inX) }

// ReverseSequence reverses, for each batch entry b along BatchAxis, the
// first SequenceLens[b] entries along TimeAxis; the rest are copied.
// BatchAxis and TimeAxis are 0 and 1 in some order.
type ReverseSequence struct {
	BatchAxis int64
	TimeAxis  int64
}

func (*ReverseSequence) Kind() string { return "ReverseSequence" }
func (*ReverseSequence) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "SequenceLens"})
}

// ---- definitions ----

func generateOps() []*OpDef {
	return []*OpDef{
		{
			Kind: "NonZero", Summary: "coordinates of the nonzero entries, (rank, count) i64; count known at run time",
			New:   func() Op { return &NonZero{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.nonZero()) },
			Example: func() Example {
				// i64 inputs of the examples hold i%3: every third is zero.
				return Example{Op: &NonZero{}, Inputs: []ExampleInput{{DType: Int64, Shape: []int64{3, 4}}}}
			},
		},
		{
			Kind: "Unique", Summary: "distinct entries or slices (sorted or first-occurrence order), first indices, inverse, counts",
			New:   func() Op { return &Unique{Sorted: true, Flatten: true} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return c.unique(c.n.Op.(*Unique)) },
			Example: func() Example {
				x := NewFloat32Tensor("", []int64{2, 6}, []float32{2, -1, 2, 0.5, -1, 3, 0.5, 2, 7, -1, 3, 3})
				return Example{Op: &Unique{Sorted: false, Flatten: true},
					Inputs: []ExampleInput{{DType: Float32, Shape: x.Shape, Const: x}}, Outputs: 4}
			},
		},
		{
			Kind: "Range", Summary: "start, start+delta, ... below limit; length static when the bounds are constants",
			HalfUnsafe: "float16 cannot hold start + i·delta exactly past 2048 steps",
			New:        func() Op { return &Range{} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.rangeOp()) },
			Example: func() Example {
				s := func(v float32) ExampleInput {
					return ExampleInput{DType: Float32, Shape: []int64{}, Const: NewFloat32Tensor("", []int64{}, []float32{v})}
				}
				return Example{Op: &Range{}, Inputs: []ExampleInput{s(1.5), s(-2), s(-0.75)}}
			},
		},
		{
			Kind: "ConstantOfShape", Summary: "a tensor of a given (constant or run-time) shape filled with one value",
			New: func() Op {
				return &ConstantOfShape{Value: NewFloat32Tensor("", []int64{1}, []float32{0})}
			},
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.constantOfShape(c.n.Op.(*ConstantOfShape))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*ConstantOfShape)
				if op.Value == nil {
					return c.Errorf("has no Value")
				}
				if err := op.Value.CheckData(); err != nil {
					return c.Errorf("Value: %v", err)
				}
				if n := op.Value.NumElements(); n != 1 {
					return c.Errorf("Value has %d elements, want 1", n)
				}
				return c.AtLeast("Shape", op.Shape, 0)
			},
			Example: func() Example {
				return Example{Op: &ConstantOfShape{Value: NewInt64Tensor("", []int64{1}, []int64{-7}), Shape: []int64{2, 3}}}
			},
		},
		{
			Kind: "EyeLike", Summary: "2-D tensor of the input's shape with ones on one diagonal",
			New:   func() Op { return &EyeLike{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.eyeLike(c.n.Op.(*EyeLike))) },
			Check: func(c *CheckCtx) error {
				if dt := c.N.Op.(*EyeLike).DType; dt == Undefined || dt.Size() == 0 {
					return c.Errorf("DType %s is not a tensor dtype", dt)
				}
				return nil
			},
			Example: func() Example {
				return Example{Op: &EyeLike{K: 1, DType: Int32}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{3, 5}}}}
			},
		},
		{
			Kind: "DepthToSpace", Summary: "channel blocks to spatial blocks, DCR or CRD (pixel shuffle) order",
			New: func() Op { return &DepthToSpace{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				return one(c.blockShuffle(c.n.Op.(*DepthToSpace).Blocksize, true))
			},
			Check: func(c *CheckCtx) error { return checkBlocksize(c, c.N.Op.(*DepthToSpace).Blocksize) },
			Example: func() Example {
				return Example{Op: &DepthToSpace{Blocksize: 2, CRD: false}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{1, 8, 2, 3}}}}
			},
		},
		{
			Kind: "SpaceToDepth", Summary: "spatial blocks to channel blocks (DCR order)",
			New: func() Op { return &SpaceToDepth{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				return one(c.blockShuffle(c.n.Op.(*SpaceToDepth).Blocksize, false))
			},
			Check: func(c *CheckCtx) error { return checkBlocksize(c, c.N.Op.(*SpaceToDepth).Blocksize) },
			Example: func() Example {
				return Example{Op: &SpaceToDepth{Blocksize: 2}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{1, 2, 4, 6}}}}
			},
		},
		{
			Kind: "ReverseSequence", Summary: "reverse the first seq_len entries along the time axis, per batch entry",
			New:   func() Op { return &ReverseSequence{BatchAxis: 1, TimeAxis: 0} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.reverseSequence(c.n.Op.(*ReverseSequence))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*ReverseSequence)
				if !((op.BatchAxis == 0 && op.TimeAxis == 1) || (op.BatchAxis == 1 && op.TimeAxis == 0)) {
					return c.Errorf("BatchAxis %d and TimeAxis %d must be 0 and 1 in some order", op.BatchAxis, op.TimeAxis)
				}
				return nil
			},
			Example: func() Example {
				lens := NewInt64Tensor("", []int64{3}, []int64{4, 1, 2})
				return Example{Op: &ReverseSequence{BatchAxis: 1, TimeAxis: 0},
					Inputs: []ExampleInput{{DType: Float32, Shape: []int64{4, 3, 2}}, {DType: Int64, Shape: lens.Shape, Const: lens}}}
			},
		},
	}
}

func checkBlocksize(c *CheckCtx, b int64) error {
	if b < 1 {
		return c.Errorf("Blocksize is %d, must be >= 1", b)
	}
	return nil
}

// ---- inference ----

// countDim is the symbolic length of a data-dependent output axis, named
// after the node (or its first output) so that every consumer can tell
// which run-time count it is.
func (c *InferCtx) countDim() Dim {
	base := c.n.Name
	if base == "" {
		base = c.outName(0)
	}
	return Dim{Size: -1, Param: base + "_count"}
}

func (c *InferCtx) nonZero() (ValueInfo, error) {
	x := c.in[0]
	rank := unknownDim
	if x.RankKnown {
		rank = knownDim(int64(len(x.Shape)))
	}
	count := c.countDim()
	if k := constAny(x); k != nil && !x.DType.IsFloat() {
		v, err := k.Int64s()
		if err != nil {
			return ValueInfo{}, c.errf("input %q: %v", c.n.Inputs[0], err)
		}
		n := int64(0)
		for _, e := range v {
			if e != 0 {
				n++
			}
		}
		count = knownDim(n)
	} else if k != nil {
		v, err := k.Float64s()
		if err != nil {
			return ValueInfo{}, c.errf("input %q: %v", c.n.Inputs[0], err)
		}
		n := int64(0)
		for _, e := range v {
			if e != 0 {
				n++
			}
		}
		count = knownDim(n)
	}
	return shaped(Int64, []Dim{rank, count}), nil
}

func (c *InferCtx) unique(op *Unique) ([]ValueInfo, error) {
	x := c.in[0]
	count := c.countDim()
	outs := make([]ValueInfo, 4)
	outs[1] = shaped(Int64, []Dim{count})
	outs[3] = shaped(Int64, []Dim{count})
	if op.Flatten {
		outs[0] = shaped(x.DType, []Dim{count})
		total := unknownDim
		if s, ok := x.StaticShape(); ok {
			total = knownDim(NumElements(s))
		}
		outs[2] = shaped(Int64, []Dim{total})
		return outs, nil
	}
	if !x.RankKnown {
		outs[0] = ValueInfo{DType: x.DType}
		outs[2] = shaped(Int64, []Dim{unknownDim})
		return outs, nil
	}
	a, ok := normAxis(op.Axis, len(x.Shape))
	if !ok {
		return nil, c.errf("axis %d is out of range for input %q of shape %s", op.Axis, c.n.Inputs[0], fmtShape(x))
	}
	y := cloneDims(x.Shape)
	y[a] = count
	outs[0] = shaped(x.DType, y)
	outs[2] = shaped(Int64, []Dim{dimAt(x, a)})
	return outs, nil
}

// RangeLength is the entry count of Range(start, limit, delta) computed in
// float64: max(ceil((limit-start)/delta), 0).
func RangeLength(start, limit, delta float64) int64 {
	n := math.Ceil((limit - start) / delta)
	if !(n > 0) {
		return 0
	}
	return int64(n)
}

// RangeLengthInt is the exact entry count for integer bounds, or -1 when it
// overflows.
func RangeLengthInt(start, limit, delta int64) int64 {
	var a arith
	diff := a.sub(limit, start)
	if a.overflow || delta == 0 {
		return -1
	}
	if (diff > 0) != (delta > 0) || diff == 0 {
		return 0
	}
	q := diff / delta
	if diff%delta != 0 {
		q++
	}
	return q
}

func (c *InferCtx) rangeOp() (ValueInfo, error) {
	dt := c.in[0].DType
	for i := range 3 {
		if err := c.sameDType(0, i); err != nil {
			return ValueInfo{}, err
		}
		v := c.in[i]
		if v.DType == Bool {
			return ValueInfo{}, c.errf("%s %q is bool, want a number", c.slot(i), c.n.Inputs[i])
		}
		if s, ok := v.StaticShape(); ok && NumElements(s) != 1 {
			return ValueInfo{}, c.errf("%s %q has shape %s, want a scalar", c.slot(i), c.n.Inputs[i], fmtShape(v))
		}
	}
	ks := [3]*Tensor{constAny(c.in[0]), constAny(c.in[1]), constAny(c.in[2])}
	if ks[0] == nil || ks[1] == nil || ks[2] == nil {
		return shaped(dt, []Dim{c.countDim()}), nil
	}
	if dt.IsFloat() {
		var f [3]float64
		for i, k := range ks {
			v, err := k.Float64s()
			if err != nil || len(v) != 1 {
				return ValueInfo{}, c.errf("%s %q must hold one number", c.slot(i), c.n.Inputs[i])
			}
			f[i] = v[0]
		}
		if f[2] == 0 {
			return ValueInfo{}, c.errf("Delta %q is 0; the sequence would never reach its limit", c.n.Inputs[2])
		}
		return shaped(dt, []Dim{knownDim(RangeLength(f[0], f[1], f[2]))}), nil
	}
	var iv [3]int64
	for i, k := range ks {
		v, err := k.Int64s()
		if err != nil || len(v) != 1 {
			return ValueInfo{}, c.errf("%s %q must hold one integer", c.slot(i), c.n.Inputs[i])
		}
		iv[i] = v[0]
	}
	if iv[2] == 0 {
		return ValueInfo{}, c.errf("Delta %q is 0; the sequence would never reach its limit", c.n.Inputs[2])
	}
	n := RangeLengthInt(iv[0], iv[1], iv[2])
	if n < 0 {
		return ValueInfo{}, c.overflow("the Range length")
	}
	out := shaped(dt, []Dim{knownDim(n)})
	if n <= maxConstElems && dt.IsInt() { // shape arithmetic (arange feeding a Reshape) resolves
		v := make([]int64, n)
		for i := range v {
			v[i] = iv[0] + int64(i)*iv[2]
		}
		out.Const = makeIntConst(c.outName(0), dt, []int64{n}, v)
	}
	return out, nil
}

func (c *InferCtx) constantOfShape(op *ConstantOfShape) (ValueInfo, error) {
	if op.Value == nil {
		return ValueInfo{}, c.errf("has no Value")
	}
	dt := op.Value.DType
	shape := op.Shape
	if c.present(0) {
		v, known, err := c.paramInts(0, "Shape")
		if err != nil {
			return ValueInfo{}, err
		}
		if !known {
			if n := c.paramLen(0); n >= 0 && n <= math.MaxInt32 {
				return shaped(dt, unknownDims(int(n))), nil
			}
			return ValueInfo{DType: dt}, nil
		}
		for _, d := range v {
			if d < 0 {
				return ValueInfo{}, c.errf("Shape input %q is %v; sizes must be >= 0", c.n.Inputs[0], v)
			}
		}
		shape = v
	}
	out := shaped(dt, DimsOf(shape...))
	// Small integer fills are shape arithmetic (PyTorch's F.pad export builds
	// its pads from Shape -> ConstantOfShape -> Concat): keep their value.
	if n := NumElements(shape); dt.IsInt() && n >= 0 && n <= maxConstElems {
		if v, err := op.Value.Int64s(); err == nil && len(v) == 1 {
			fill := make([]int64, n)
			for i := range fill {
				fill[i] = v[0]
			}
			out.Const = makeIntConst(c.outName(0), dt, append([]int64{}, shape...), fill)
		}
	}
	return out, nil
}

func (c *InferCtx) eyeLike(op *EyeLike) (ValueInfo, error) {
	if err := c.needRank(0, 2, "EyeLike"); err != nil {
		return ValueInfo{}, err
	}
	x := c.in[0]
	if !x.RankKnown {
		return shaped(op.DType, unknownDims(2)), nil
	}
	return shaped(op.DType, cloneDims(x.Shape)), nil
}

// blockShuffle infers DepthToSpace (toSpace) and SpaceToDepth.
func (c *InferCtx) blockShuffle(b int64, toSpace bool) (ValueInfo, error) {
	if err := c.needRank(0, 4, opKind(c.n.Op)); err != nil {
		return ValueInfo{}, err
	}
	x := c.in[0]
	if !x.RankKnown {
		return shaped(x.DType, unknownDims(4)), nil
	}
	out := cloneDims(x.Shape)
	var a arith
	ch, h, w := x.Shape[1], x.Shape[2], x.Shape[3]
	if toSpace {
		if ch.Known() && ch.Size%(b*b) != 0 {
			return ValueInfo{}, c.errf("input %q has %d channels, not a multiple of blocksize² = %d", c.n.Inputs[0], ch.Size, b*b)
		}
		out[1], out[2], out[3] = unknownDim, unknownDim, unknownDim
		if ch.Known() {
			out[1] = knownDim(ch.Size / (b * b))
		}
		if h.Known() {
			out[2] = knownDim(a.mul(h.Size, b))
		}
		if w.Known() {
			out[3] = knownDim(a.mul(w.Size, b))
		}
	} else {
		for i, d := range []Dim{h, w} {
			if d.Known() && d.Size%b != 0 {
				return ValueInfo{}, c.errf("input %q has shape %s: axis %d is not a multiple of blocksize %d", c.n.Inputs[0], fmtShape(x), i+2, b)
			}
		}
		out[1], out[2], out[3] = unknownDim, unknownDim, unknownDim
		if ch.Known() {
			out[1] = knownDim(a.mul(ch.Size, b*b))
		}
		if h.Known() {
			out[2] = knownDim(h.Size / b)
		}
		if w.Known() {
			out[3] = knownDim(w.Size / b)
		}
	}
	if a.overflow {
		return ValueInfo{}, c.overflow("the output shape")
	}
	return shaped(x.DType, out), nil
}

func (c *InferCtx) reverseSequence(op *ReverseSequence) (ValueInfo, error) {
	x, lens := c.in[0], c.in[1]
	if x.RankKnown && len(x.Shape) < 2 {
		return ValueInfo{}, c.errf("input %q has shape %s; ReverseSequence needs rank >= 2", c.n.Inputs[0], fmtShape(x))
	}
	if lens.DType != Undefined && lens.DType != Int64 {
		return ValueInfo{}, c.errf("SequenceLens %q is %s, want i64", c.n.Inputs[1], lens.DType)
	}
	if err := c.needRank(1, 1, "ReverseSequence"); err != nil {
		return ValueInfo{}, err
	}
	if b := dimAt(x, int(op.BatchAxis)); b.Known() && lens.RankKnown && lens.Shape[0].Known() && lens.Shape[0].Size != b.Size {
		return ValueInfo{}, c.errf("SequenceLens %q has %d entries, but input %q has %d batch entries (axis %d)", c.n.Inputs[1], lens.Shape[0].Size, c.n.Inputs[0], b.Size, op.BatchAxis)
	}
	if k := constOf(lens); k != nil {
		v, _ := k.Int64s()
		t := dimAt(x, int(op.TimeAxis))
		for _, l := range v {
			if l < 0 || (t.Known() && l > t.Size) {
				return ValueInfo{}, c.errf("SequenceLens %q holds %d, outside [0, %d] (the time axis)", c.n.Inputs[1], l, t.Size)
			}
		}
	}
	return shaped2(x), nil
}

// generateWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var generateWithout = Without{Accumulation: SumsNothing, RemapAxes: NoRemapYet, Decompose: Primitive, Noop: NoNoopSetting}
