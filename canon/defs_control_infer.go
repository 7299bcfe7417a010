package canon

func init() {
	Register(withReason(&OpDef{
		Kind: "If", Summary: "runs the then or the else subgraph on a boolean scalar condition",
		New:   func() Op { return &If{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return c.inferIf(c.n.Op.(*If)) },
		Check: func(c *CheckCtx) error {
			o := c.N.Op.(*If)
			if err := checkSubgraphShape(c, o); err != nil {
				return err
			}
			if len(o.Then.Inputs) > 0 || len(o.Else.Inputs) > 0 {
				return c.Errorf("If branches take no inputs (then %d, else %d)", len(o.Then.Inputs), len(o.Else.Inputs))
			}
			if len(o.Then.Outputs) != len(o.Else.Outputs) {
				return c.Errorf("then_branch has %d outputs, else_branch %d: they must match", len(o.Then.Outputs), len(o.Else.Outputs))
			}
			return nil
		},
		Example: func() Example {
			branch := func(fn UnaryFn) *Graph {
				return &Graph{Name: "branch",
					Nodes:   []*Node{{Name: "act", Op: &Unary{Fn: fn}, Inputs: []string{"x"}, Outputs: []string{"y"}}},
					Outputs: []ValueInfo{{Name: "y", DType: Float32}}}
			}
			return Example{Op: &If{Then: branch(Relu), Else: branch(Tanh), Captures: []string{"x"}},
				Inputs: []ExampleInput{{DType: Bool, Shape: []int64{}, Const: &Tensor{DType: Bool, Shape: []int64{}, Data: []byte{1}}}, exampleX}}
		},
	}, controlWithout))
	Register(withReason(&OpDef{
		Kind: "Loop", Summary: "runs a body subgraph up to M times while its condition holds, carrying values and stacking scan outputs",
		New:   func() Op { return &Loop{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return c.inferLoop(c.n.Op.(*Loop)) },
		Check: func(c *CheckCtx) error {
			o := c.N.Op.(*Loop)
			if err := checkSubgraphShape(c, o); err != nil {
				return err
			}
			if len(o.Body.Inputs) < 2 || len(o.Body.Outputs) < 1+o.Carried() {
				return c.Errorf("the body has %d inputs and %d outputs; it needs (iteration, condition, carried...) in and (condition, carried..., scan outputs...) out",
					len(o.Body.Inputs), len(o.Body.Outputs))
			}
			return nil
		},
		Example: func() Example {
			// Three iterations of acc = acc + x, stacking each acc.
			body := &Graph{Name: "body",
				Inputs: []ValueInfo{{Name: "i", DType: Int64, RankKnown: true}, {Name: "c", DType: Bool, RankKnown: true},
					{Name: "acc", DType: Float32, Shape: DimsOf(exampleX.Shape...), RankKnown: true}},
				Nodes: []*Node{
					{Name: "add", Op: &Binary{Fn: Add}, Inputs: []string{"acc", "x"}, Outputs: []string{"acc_next"}},
					{Name: "keep", Op: &Identity{}, Inputs: []string{"c"}, Outputs: []string{"c_next"}},
					{Name: "emit", Op: &Identity{}, Inputs: []string{"acc_next"}, Outputs: []string{"acc_scan"}},
				},
				Outputs: []ValueInfo{{Name: "c_next"}, {Name: "acc_next"}, {Name: "acc_scan"}}}
			return Example{Op: &Loop{Body: body, Captures: []string{"x"}}, Outputs: 2,
				Inputs: []ExampleInput{{DType: Int64, Shape: []int64{}, Const: NewInt64Tensor("", []int64{}, []int64{3})},
					{}, exampleX, exampleX}}
		},
	}, controlWithout))
	Register(withReason(&OpDef{
		Kind: "Scan", Summary: "runs a body subgraph once per slice of its scan inputs, carrying states and stacking scan outputs",
		New:   func() Op { return &Scan{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return c.inferScan(c.n.Op.(*Scan)) },
		Check: func(c *CheckCtx) error {
			o := c.N.Op.(*Scan)
			if err := checkSubgraphShape(c, o); err != nil {
				return err
			}
			if o.NumScanInputs < 1 || int(o.NumScanInputs) > len(o.Body.Inputs) {
				return c.Errorf("num_scan_inputs %d must be between 1 and the body's %d inputs", o.NumScanInputs, len(o.Body.Inputs))
			}
			if len(o.Body.Outputs) < o.States() {
				return c.Errorf("the body has %d outputs for %d states", len(o.Body.Outputs), o.States())
			}
			for _, l := range []struct {
				name string
				v    []int64
				n    int
			}{{"scan_input_axes", o.InputAxes, int(o.NumScanInputs)}, {"scan_input_directions", o.InputDirections, int(o.NumScanInputs)},
				{"scan_output_axes", o.OutputAxes, o.ScanOutputCount()}, {"scan_output_directions", o.OutputDirections, o.ScanOutputCount()}} {
				if len(l.v) != 0 && len(l.v) != l.n {
					return c.Errorf("%s has %d entries for %d values", l.name, len(l.v), l.n)
				}
			}
			for _, d := range append(append([]int64{}, o.InputDirections...), o.OutputDirections...) {
				if d != 0 && d != 1 {
					return c.Errorf("a scan direction is %d; it must be 0 (forward) or 1 (reverse)", d)
				}
			}
			return nil
		},
		Example: func() Example {
			// A running sum over the rows of x: state += row; emit state.
			body := &Graph{Name: "body",
				Inputs: []ValueInfo{{Name: "s", DType: Float32, Shape: DimsOf(3), RankKnown: true},
					{Name: "row", DType: Float32, Shape: DimsOf(3), RankKnown: true}},
				Nodes: []*Node{
					{Name: "add", Op: &Binary{Fn: Add}, Inputs: []string{"s", "row"}, Outputs: []string{"s_next"}},
					{Name: "emit", Op: &Identity{}, Inputs: []string{"s_next"}, Outputs: []string{"s_scan"}},
				},
				Outputs: []ValueInfo{{Name: "s_next"}, {Name: "s_scan"}}}
			return Example{Op: &Scan{Body: body, NumScanInputs: 1}, Outputs: 2,
				Inputs: []ExampleInput{{DType: Float32, Shape: []int64{3}}, {DType: Float32, Shape: []int64{4, 3}}}}
		},
	}, controlWithout))
}

func (c *InferCtx) inferIf(o *If) ([]ValueInfo, error) {
	cond := c.in[0]
	if cond.DType != Undefined && cond.DType != Bool {
		return nil, c.errf("condition %q is %s, want bool", c.n.Inputs[0], cond.DType)
	}
	if n, ok := cond.StaticShape(); ok && numelOf(n) != 1 {
		return nil, c.errf("condition %q has shape %v, want a single element", c.n.Inputs[0], n)
	}
	then, err := c.inferSubgraph("then_branch", o.Then, nil)
	if err != nil {
		return nil, err
	}
	els, err := c.inferSubgraph("else_branch", o.Else, nil)
	if err != nil {
		return nil, err
	}
	if cond.Const != nil && len(cond.Const.Data) == 1 {
		// A condition known before running: the If is its taken branch.
		taken := then
		if cond.Const.Data[0] == 0 {
			taken = els
		}
		return taken, nil
	}
	outs := make([]ValueInfo, len(then))
	for i := range then {
		t, e := then[i], els[i]
		if t.DType != Undefined && e.DType != Undefined && t.DType != e.DType {
			return nil, c.errf("output %d is %s in then_branch and %s in else_branch", i, t.DType, e.DType)
		}
		if !sameKind(t, e) {
			return nil, c.errf("output %d is a %s in then_branch and a %s in else_branch", i, t.Kind, e.Kind)
		}
		outs[i] = LooseType(t, e)
		if outs[i].DType == Undefined {
			outs[i].DType = max(t.DType, e.DType)
		}
	}
	return outs, nil
}

func (c *InferCtx) inferLoop(o *Loop) ([]ValueInfo, error) {
	if c.present(0) {
		if m := c.in[0]; m.DType != Undefined && m.DType != Int64 {
			return nil, c.errf("trip count %q is %s, want int64", c.n.Inputs[0], m.DType)
		}
	}
	if c.present(1) {
		if m := c.in[1]; m.DType != Undefined && m.DType != Bool {
			return nil, c.errf("condition %q is %s, want bool", c.n.Inputs[1], m.DType)
		}
	}
	n := o.Carried()
	var body []ValueInfo
	var err error
	// A body that keeps its carried values' types (symbolic sizes
	// included) keeps them in the loop's outputs; otherwise only what the
	// declarations and the initial values share holds.
	if tight, changed := tightLoopFormal(o, c.in); changed {
		if b, err := c.inferSubgraph("body", o.Body, tight); err == nil && keepsTypes(o, tight, b) {
			body = b
		}
	}
	if body == nil {
		if body, err = c.inferSubgraph("body", o.Body, loopFormal(o, c.in)); err != nil {
			return nil, err
		}
	}
	outs := make([]ValueInfo, 0, len(body)-1)
	for i := 0; i < n; i++ {
		init, next := c.in[2+i], body[1+i]
		if init.DType != Undefined && next.DType != Undefined && init.DType != next.DType {
			return nil, c.errf("carried value %d starts as %s and the body makes it %s", i, init.DType, next.DType)
		}
		out := LooseType(init, next)
		switch {
		case sameKind(init, next):
		case init.Kind.IsOptional() && init.Kind.Element() == next.Kind:
			// Given as an optional, made a value by the body (ONNX's
			// loop16_seq_none): the result is the body's value, or the
			// optional's when no iteration runs (an error if it is empty).
			out.Kind = next.Kind
		default:
			return nil, c.errf("carried value %d starts as a %s and the body makes it a %s", i, init.Kind, next.Kind)
		}
		outs = append(outs, out)
	}
	iters := c.runTimeDim("iterations")
	// Without a cond input the body's condition is ignored: M runs exactly.
	if m, ok := c.constInt(0); ok && !c.present(1) {
		iters = Dim{Size: max(m, 0)}
	}
	for j, s := range body[1+n:] {
		if !s.IsTensor() {
			return nil, c.errf("scan output %d is a %s; a Loop stacks tensors only (carry the sequence instead)", j, s.Kind)
		}
		v := ValueInfo{DType: s.DType}
		if s.RankKnown {
			v.RankKnown = true
			v.Shape = append([]Dim{iters}, cloneDims(s.Shape)...)
		}
		outs = append(outs, v)
	}
	return outs, nil
}

// carriedType is what holds of a carried value on every iteration: the
// dtype, and the dims where the initial value and the body's declaration
// agree (a body that declares no shape keeps only the dtype).
func carriedType(init, declared ValueInfo) ValueInfo {
	if declared.DType == Undefined {
		return ValueInfo{DType: init.DType, Kind: init.Kind}
	}
	if !declared.RankKnown {
		return ValueInfo{DType: declared.DType, Kind: declared.Kind}
	}
	v := LooseType(declared, init)
	v.DType = declared.DType
	return v
}

// constInt is input i's value when it is a known integer scalar.
func (c *InferCtx) constInt(i int) (int64, bool) {
	if !c.present(i) || c.in[i].Const == nil || c.in[i].Const.DType != Int64 {
		return 0, false
	}
	v, err := c.in[i].Const.Int64s()
	if err != nil || len(v) != 1 {
		return 0, false
	}
	return v[0], true
}

func (c *InferCtx) inferScan(o *Scan) ([]ValueInfo, error) {
	n := o.States()
	formal, seq, err := scanFormal(o, c.in, c.runTimeDim("length"))
	if err != nil {
		return nil, c.errf("%v", err)
	}
	body, err := c.inferSubgraph("body", o.Body, formal)
	if err != nil {
		return nil, err
	}
	outs := make([]ValueInfo, 0, len(body))
	for i := 0; i < n; i++ {
		outs = append(outs, LooseType(c.in[i], body[i]))
	}
	for k, s := range body[n:] {
		v := ValueInfo{DType: s.DType}
		if s.RankKnown {
			r := int64(len(s.Shape)) + 1
			axis := o.OutputAxis(k)
			if axis < -r || axis >= r {
				return nil, c.errf("scan output %d has rank %d; axis %d is out of range", k, r, axis)
			}
			if axis < 0 {
				axis += r
			}
			v.RankKnown = true
			v.Shape = append(append(cloneDims(s.Shape[:axis]), seq), cloneDims(s.Shape[axis:])...)
		}
		outs = append(outs, v)
	}
	return outs, nil
}

func numelOf(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// controlWithout: the slots a control-flow node leaves to its subgraphs.
var controlWithout = Without{
	Accumulation: "runs subgraphs, whose own nodes carry their accumulation",
	RemapAxes:    "its subgraphs read their inputs in the axis order they were written for",
	Decompose:    "control flow: which subgraph runs, and how often, is known only at run time",
	Noop:         "its outputs come from its subgraphs, which the branch-inlining pass handles",
}
