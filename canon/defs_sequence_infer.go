package canon

func init() {
	mk := func(d *OpDef) { Register(withReason(d, sequenceWithout)) }
	mk(&OpDef{
		Kind: "SequenceConstruct", Summary: "makes a sequence of its input tensors, in order",
		New: func() Op { return &SequenceConstruct{} }, Infer: inferSequenceConstruct,
		Example: func() Example {
			return Example{Op: &SequenceConstruct{}, Inputs: []ExampleInput{exampleF32(2, 3), {DType: Float32, Shape: []int64{2, 3}}}}
		},
	})
	mk(&OpDef{
		Kind: "SequenceEmpty", Summary: "makes an empty sequence of tensors of one dtype",
		New: func() Op { return &SequenceEmpty{DType: Float32} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			return []ValueInfo{{DType: c.n.Op.(*SequenceEmpty).DType, Kind: SequenceValue}}, nil
		},
		Check: func(c *CheckCtx) error {
			if dt := c.N.Op.(*SequenceEmpty).DType; dt == Undefined || dt.Size() == 0 {
				return c.Errorf("dtype %s is not a tensor element type", dt)
			}
			return nil
		},
		Example: func() Example { return Example{Op: &SequenceEmpty{DType: Float32}} },
	})
	mk(&OpDef{
		Kind: "SequenceAt", OutputDTypes: sequenceDTypes, Summary: "the tensor at a position of a sequence (negative counts from the end)",
		New: func() Op { return &SequenceAt{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			s, err := c.sequenceAndPosition()
			if err != nil {
				return nil, err
			}
			return []ValueInfo{s.TensorType()}, nil
		},
		Example: func() Example {
			return Example{Op: &SequenceAt{}, Inputs: []ExampleInput{exampleSeq, examplePosition(-1)}}
		},
	})
	mk(&OpDef{
		Kind: "SequenceInsert", OutputDTypes: sequenceDTypes, Summary: "a sequence with a tensor inserted at a position (the end by default)",
		New: func() Op { return &SequenceInsert{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			s, err := c.sequenceIn(0)
			if err != nil {
				return nil, err
			}
			t, err := c.tensorIn(1)
			if err != nil {
				return nil, err
			}
			if s.DType != Undefined && t.DType != Undefined && s.DType != t.DType {
				return nil, c.errf("tensor %q is %s, the sequence holds %s", c.n.Inputs[1], t.DType, s.DType)
			}
			if err := c.positionIn(2); err != nil {
				return nil, err
			}
			out := SequenceOf(LooseType(s.TensorType(), t))
			if s.DType == Undefined {
				out.DType = t.DType
			}
			return []ValueInfo{out}, nil
		},
		Example: func() Example {
			return Example{Op: &SequenceInsert{}, Inputs: []ExampleInput{exampleSeq, exampleF32(2, 3), examplePosition(0)}}
		},
	})
	mk(&OpDef{
		Kind: "SequenceErase", OutputDTypes: sequenceDTypes, Summary: "a sequence with the tensor at a position removed (the last by default)",
		New: func() Op { return &SequenceErase{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			s, err := c.sequenceAndPosition()
			if err != nil {
				return nil, err
			}
			return []ValueInfo{SequenceOf(s)}, nil
		},
		Example: func() Example {
			return Example{Op: &SequenceErase{}, Inputs: []ExampleInput{exampleSeq, examplePosition(1)}}
		},
	})
	mk(&OpDef{
		Kind: "SequenceLength", OutputDTypes: sequenceDTypes, Summary: "the number of tensors in a sequence (int64 scalar)",
		New: func() Op { return &SequenceLength{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			if _, err := c.sequenceIn(0); err != nil {
				return nil, err
			}
			return []ValueInfo{shaped(Int64, []Dim{})}, nil
		},
		Example: func() Example { return Example{Op: &SequenceLength{}, Inputs: []ExampleInput{exampleSeq}} },
	})
	mk(&OpDef{
		Kind: "SplitToSequence", Summary: "splits a tensor along an axis into a sequence (equal pieces, given lengths, or slices of one)",
		New: func() Op { return &SplitToSequence{KeepDims: true} }, Infer: inferSplitToSequence,
		Example: func() Example {
			return Example{Op: &SplitToSequence{Axis: 1, KeepDims: true},
				Inputs: []ExampleInput{exampleF32(2, 5), {DType: Int64, Shape: []int64{}, Const: NewInt64Tensor("", []int64{}, []int64{2})}}}
		},
	})
	mk(&OpDef{
		Kind: "ConcatFromSequence", OutputDTypes: sequenceDTypes, Summary: "concatenates a sequence's tensors along an axis, or stacks them along a new one",
		New: func() Op { return &ConcatFromSequence{} }, Infer: inferConcatFromSequence,
		Example: func() Example {
			return Example{Op: &ConcatFromSequence{Axis: -1, NewAxis: true}, Inputs: []ExampleInput{exampleSeq}}
		},
	})
	Register(withReason(&OpDef{
		Kind: "SequenceMap", OutputDTypes: sequenceDTypes, Summary: "runs a body subgraph once per tensor of a sequence (with the matching tensors of further inputs), making sequences",
		New:   func() Op { return &SequenceMap{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return c.inferSequenceMap(c.n.Op.(*SequenceMap)) },
		Check: func(c *CheckCtx) error {
			o := c.N.Op.(*SequenceMap)
			if err := checkSubgraphShape(c, o); err != nil {
				return err
			}
			if len(o.Body.Inputs) < 1 || len(o.Body.Outputs) < 1 {
				return c.Errorf("the body has %d inputs and %d outputs; it needs at least one of each", len(o.Body.Inputs), len(o.Body.Outputs))
			}
			return nil
		},
		Example: func() Example {
			body := &Graph{Name: "body",
				Inputs: []ValueInfo{{Name: "t", DType: Float32, Shape: DimsOf(2, 3), RankKnown: true}},
				Nodes: []*Node{
					{Name: "act", Op: &Unary{Fn: Relu}, Inputs: []string{"t"}, Outputs: []string{"r"}},
					{Name: "shape", Op: NewShapeOf(), Inputs: []string{"t"}, Outputs: []string{"s"}},
				},
				Outputs: []ValueInfo{{Name: "r"}, {Name: "s"}}}
			return Example{Op: &SequenceMap{Body: body}, Inputs: []ExampleInput{exampleSeq}, Outputs: 2}
		},
	}, controlWithout))
	mk(&OpDef{
		Kind: "Optional", Summary: "wraps a tensor or a sequence into an optional, or makes an empty optional of a type",
		New: func() Op { return &Optional{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			o := c.n.Op.(*Optional)
			if !c.present(0) {
				if !o.Type.Kind.IsOptional() {
					return nil, c.errf("an empty Optional needs its type (an optional tensor or sequence), has a %s", o.Type.Kind)
				}
				return []ValueInfo{o.Type.ElementType().withKind(o.Type.Kind)}, nil
			}
			x := c.in[0]
			if x.Kind.IsOptional() {
				return nil, c.errf("input %q is already an optional", c.n.Inputs[0])
			}
			return []ValueInfo{x.ElementType().withKind(OptionalOf(x.Kind))}, nil
		},
		Example: func() Example { return Example{Op: &Optional{}, Inputs: []ExampleInput{exampleF32(2, 3)}} },
	})
	mk(&OpDef{
		Kind: "OptionalHasElement", Summary: "true when an optional holds a value (a tensor or a sequence always does; an absent input never)",
		New: func() Op { return &OptionalHasElement{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			return []ValueInfo{shaped(Bool, []Dim{})}, nil
		},
		Example: func() Example {
			return Example{Op: &OptionalHasElement{}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3}, Kind: OptionalTensor}}}
		},
	})
	mk(&OpDef{
		Kind: "OptionalGetElement", Summary: "the value an optional holds (an error when empty); a tensor or a sequence as it is",
		New: func() Op { return &OptionalGetElement{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			return []ValueInfo{c.in[0].ElementType()}, nil
		},
		Example: func() Example {
			return Example{Op: &OptionalGetElement{}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3}, Kind: OptionalTensor}}}
		},
	})
}

// sequenceWithout: the slots a sequence or optional op leaves empty.
var sequenceWithout = Without{
	Accumulation: SumsNothing,
	RemapAxes:    "reads or makes sequences and optionals, whose tensors keep the axis order they were given",
	Decompose:    "a primitive of sequences and optionals: no tensor op makes a run-time list",
	Noop:         "changes the kind of its value, or picks or moves elements of a list",
}

// exampleSeq is a sequence input of (2, 3) float32 tensors.
var exampleSeq = ExampleInput{DType: Float32, Shape: []int64{2, 3}, Kind: SequenceValue}

func examplePosition(p int64) ExampleInput {
	return ExampleInput{DType: Int64, Shape: []int64{}, Const: NewInt64Tensor("", []int64{}, []int64{p})}
}

func (v ValueInfo) withKind(k ValueKind) ValueInfo {
	v.Kind = k
	return v
}

// sequenceIn is input i, which must be a sequence.
func (c *InferCtx) sequenceIn(i int) (ValueInfo, error) {
	v := c.in[i]
	if v.Kind != SequenceValue {
		return v, c.errf("input %q is a %s; %s reads a sequence there", c.n.Inputs[i], v.Kind, opKind(c.n.Op))
	}
	return v, nil
}

// sequenceAndPosition is input 0, which must be a sequence, after checking
// the optional position input 1 (SequenceAt, SequenceErase).
func (c *InferCtx) sequenceAndPosition() (ValueInfo, error) {
	s, err := c.sequenceIn(0)
	if err != nil {
		return s, err
	}
	return s, c.positionIn(1)
}

// tensorIn is input i, which must be a tensor.
func (c *InferCtx) tensorIn(i int) (ValueInfo, error) {
	v := c.in[i]
	if !v.IsTensor() {
		return v, c.errf("input %q is a %s; %s reads a tensor there", c.n.Inputs[i], v.Kind, opKind(c.n.Op))
	}
	return v, nil
}

// positionIn checks the optional position input i: an int32 or int64
// tensor of one element.
func (c *InferCtx) positionIn(i int) error {
	if !c.present(i) {
		return nil
	}
	p, err := c.tensorIn(i)
	if err != nil {
		return err
	}
	if p.DType != Undefined && p.DType != Int64 && p.DType != Int32 {
		return c.errf("position %q is %s, want int32 or int64", c.n.Inputs[i], p.DType)
	}
	if s, ok := p.StaticShape(); ok && numelOf(s) != 1 {
		return c.errf("position %q has shape %v, want one element", c.n.Inputs[i], s)
	}
	return nil
}

func inferSequenceConstruct(c *InferCtx) ([]ValueInfo, error) {
	var elem ValueInfo
	for i := range c.in {
		t, err := c.tensorIn(i)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			elem = t.TensorType()
			continue
		}
		if t.DType != Undefined && elem.DType != Undefined && t.DType != elem.DType {
			return nil, c.errf("input %q is %s, input %q %s: a sequence holds one dtype", c.n.Inputs[i], t.DType, c.n.Inputs[0], elem.DType)
		}
		dt := max(elem.DType, t.DType)
		elem = LooseType(elem, t)
		elem.DType = dt
	}
	return []ValueInfo{SequenceOf(elem)}, nil
}

func inferSplitToSequence(c *InferCtx) ([]ValueInfo, error) {
	o := c.n.Op.(*SplitToSequence)
	x, err := c.tensorIn(0)
	if err != nil {
		return nil, err
	}
	if c.present(1) {
		s, err := c.tensorIn(1)
		if err != nil {
			return nil, err
		}
		if s.DType != Undefined && s.DType != Int64 && s.DType != Int32 {
			return nil, c.errf("split %q is %s, want int32 or int64", c.n.Inputs[1], s.DType)
		}
		if s.RankKnown && len(s.Shape) > 1 {
			return nil, c.errf("split %q has rank %d, want a scalar or a 1-D list", c.n.Inputs[1], len(s.Shape))
		}
	}
	out := ValueInfo{DType: x.DType, Kind: SequenceValue}
	if !x.RankKnown {
		return []ValueInfo{out}, nil
	}
	axis, ok := normAxis(o.Axis, len(x.Shape))
	if !ok {
		return nil, c.errf("axis %d is out of range for rank %d", o.Axis, len(x.Shape))
	}
	dims := cloneDims(x.Shape)
	d := x.Shape[axis]
	switch {
	case !c.present(1) && !o.KeepDims:
		dims = append(dims[:axis], dims[axis+1:]...)
	case !c.present(1):
		dims[axis] = knownDim(1)
	default:
		if err := c.checkSplitSum(d); err != nil {
			return nil, err
		}
		dims[axis] = c.splitPieceDim(d)
	}
	out.Shape, out.RankKnown = dims, true
	return []ValueInfo{out}, nil
}

// splitPieceDim is the length of every piece along the axis when the split
// input makes them all equal, else unknown.
func (c *InferCtx) splitPieceDim(d Dim) Dim {
	s := c.in[1].Const
	if s == nil {
		return unknownDim
	}
	v, err := s.Int64s()
	if err != nil || len(v) == 0 {
		return unknownDim
	}
	if len(s.Shape) == 0 {
		// A scalar: pieces of v[0], the last shorter unless it divides.
		if v[0] > 0 && d.Known() && (d.Size%v[0] == 0 || d.Size <= v[0]) {
			return knownDim(min(v[0], d.Size))
		}
		return unknownDim
	}
	for _, p := range v[1:] {
		if p != v[0] {
			return unknownDim
		}
	}
	return knownDim(v[0])
}

func inferConcatFromSequence(c *InferCtx) ([]ValueInfo, error) {
	o := c.n.Op.(*ConcatFromSequence)
	s, err := c.sequenceIn(0)
	if err != nil {
		return nil, err
	}
	out := ValueInfo{DType: s.DType}
	if !s.RankKnown {
		return []ValueInfo{out}, nil
	}
	r := len(s.Shape)
	if o.NewAxis {
		axis, ok := normAxis(o.Axis, r+1)
		if !ok {
			return nil, c.errf("axis %d is out of range for stacking tensors of rank %d", o.Axis, r)
		}
		dims := append(append(cloneDims(s.Shape[:axis]), c.runTimeDim("count")), cloneDims(s.Shape[axis:])...)
		return []ValueInfo{shaped(s.DType, dims)}, nil
	}
	axis, ok := normAxis(o.Axis, r)
	if !ok {
		return nil, c.errf("axis %d is out of range for rank %d", o.Axis, r)
	}
	dims := cloneDims(s.Shape)
	dims[axis] = c.runTimeDim("length")
	return []ValueInfo{shaped(s.DType, dims)}, nil
}

func (c *InferCtx) inferSequenceMap(o *SequenceMap) ([]ValueInfo, error) {
	if _, err := c.sequenceIn(0); err != nil {
		return nil, err
	}
	m := o.Mapped()
	formal := make([]ValueInfo, m)
	for i := range m {
		v := c.in[i]
		switch v.Kind {
		case SequenceValue:
			formal[i] = v.TensorType()
		case TensorValue:
			formal[i] = v
		default:
			return nil, c.errf("input %q is a %s; SequenceMap maps sequences and passes tensors", c.n.Inputs[i], v.Kind)
		}
		if formal[i].DType == Undefined {
			formal[i].DType = o.Body.Inputs[i].DType
		}
	}
	body, err := c.inferSubgraph("body", o.Body, formal)
	if err != nil {
		return nil, err
	}
	outs := make([]ValueInfo, len(body))
	for i, b := range body {
		if !b.IsTensor() {
			return nil, c.errf("body output %d is a %s; SequenceMap's body makes tensors", i, b.Kind)
		}
		outs[i] = SequenceOf(b)
	}
	return outs, nil
}

// sequenceDTypes is OutputDTypes for the ops whose input 0 is a sequence:
// inference with that input typed as a sequence of unknown rank.
func sequenceDTypes(n *Node, in []DType) ([]DType, error) {
	vis := make([]ValueInfo, len(in))
	for i, dt := range in {
		vis[i] = ValueInfo{DType: dt}
	}
	if len(vis) > 0 {
		vis[0].Kind = SequenceValue
	}
	outs, err := InferNode(n, vis)
	if err != nil {
		return nil, err
	}
	dts := make([]DType, len(outs))
	for i, o := range outs {
		dts[i] = o.DType
	}
	return dts, nil
}

// checkSplitSum refuses known 1-D split lengths that do not add up to the
// axis length d (or that are negative).
func (c *InferCtx) checkSplitSum(d Dim) error {
	s := c.in[1].Const
	if s == nil || len(s.Shape) != 1 || !d.Known() {
		return nil
	}
	v, err := s.Int64s()
	if err != nil {
		return nil
	}
	sum := int64(0)
	for _, p := range v {
		if p < 0 {
			return c.errf("split lengths %v must not be negative", v)
		}
		sum += p
	}
	if sum != d.Size {
		return c.errf("split lengths %v add up to %d, but the axis has %d", v, sum, d.Size)
	}
	return nil
}
