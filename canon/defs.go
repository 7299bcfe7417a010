package canon

import (
	"math"
)

// The op kinds of the canonical IR. Adding an op means: its typed struct
// in ops.go, one definition here, and one entry in each backend's table
// (the exhaustiveness test in package opsupport names any backend that
// neither handles it nor says why not).

func init() {
	for _, d := range builtinOps() {
		Register(withReason(d, coreWithout))
	}
}

// unaryElementwise is a one-input elementwise op with the given per-element
// cost.
func unaryElementwise(cost float64) Traits { return Traits{Elementwise: true, MathCost: cost} }

// inferSame is the inference of ops whose output is input 0's type.
func inferSame(c *InferCtx) ([]ValueInfo, error) { return c.SameAsInput(0) }

// exampleX is the data input most examples share.
var exampleX = ExampleInput{DType: Float32, Shape: []int64{1, 4, 5, 5}}

func unaryExample(op Op) func() Example {
	return func() Example { return Example{Op: op, Inputs: []ExampleInput{exampleX}} }
}

func builtinOps() []*OpDef {
	defs := []*OpDef{
		{
			Kind: "Conv", Summary: "N-D convolution, weight OIHW, any group and dilation",
			AccumulationLength: kernelSum(1),
			New:                func() Op { return &Conv{Group: 1} },
			Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.conv(c.n.Op.(*Conv))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Conv)
				if op.Group < 1 {
					return c.Errorf("Group is %d, must be >= 1", op.Group)
				}
				return firstErr(
					c.sameLen(namedInts{"Strides", op.Strides}, namedInts{"Dilations", op.Dilations}, namedInts{"PadsBegin", op.PadsBegin}, namedInts{"PadsEnd", op.PadsEnd}),
					c.AtLeast("Strides", op.Strides, 1), c.AtLeast("Dilations", op.Dilations, 1),
					c.AtLeast("PadsBegin", op.PadsBegin, 0), c.AtLeast("PadsEnd", op.PadsEnd, 0))
			},
			Example: func() Example {
				return Example{
					Op:     &Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 0}, PadsEnd: []int64{1, 0}, Group: 2},
					Inputs: []ExampleInput{exampleX, exampleF32(6, 2, 3, 3), exampleF32(6)},
				}
			},
		},
		{
			Kind: "ConvTranspose", Summary: "N-D transposed convolution, weight IOHW, explicit crops and output padding",
			AccumulationLength: convTransposeSum,
			New:                func() Op { return &ConvTranspose{Group: 1} },
			Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.convTranspose(c.n.Op.(*ConvTranspose))) },
			Check:              checkConvTranspose,
			Example: func() Example {
				return Example{
					Op: &ConvTranspose{Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 0}, PadsEnd: []int64{0, 1},
						OutputPadding: []int64{1, 0}, Group: 2},
					Inputs: []ExampleInput{exampleX, exampleF32(4, 3, 3, 3), exampleF32(6)},
				}
			},
		},
		{
			Kind: "BatchNormalization", Summary: "inference-mode batch normalization over axis 1",
			New:    func() Op { return &BatchNorm{Epsilon: 1e-5} },
			Traits: Traits{Affine: true},
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.batchNorm()) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*BatchNorm)
				if !(op.Epsilon >= 0) || math.IsInf(float64(op.Epsilon), 0) {
					return c.Errorf("Epsilon is %g, must be a finite value >= 0", op.Epsilon)
				}
				return nil
			},
			Example: func() Example {
				v := exampleF32(4)
				v.Const = positive(v.Const)
				return Example{Op: &BatchNorm{Epsilon: 1e-5}, Inputs: []ExampleInput{exampleX, exampleF32(4), exampleF32(4), exampleF32(4), v}}
			},
		},
		{
			Kind: "Linear", Summary: "A·Wᵀ·Alpha + C·Beta with W in OI layout (ONNX Gemm, PyTorch Linear, MXNet FullyConnected)",
			AccumulationLength: lastDimOf(0),
			Traits:             Traits{Family: "matmul"},
			New:                func() Op { return &Linear{Alpha: 1, Beta: 1} },
			Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.linear()) },
			Example: func() Example {
				return Example{Op: &Linear{Alpha: 1, Beta: 1}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 6}}, exampleF32(3, 6), exampleF32(3)}}
			},
		},
		{
			Kind: "MatMul", Summary: "NumPy matrix product with batch broadcasting",
			AccumulationLength: lastDimOf(0),
			Traits:             Traits{Family: "matmul"},
			New:                func() Op { return &MatMul{} },
			Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.matMul()) },
			Example: func() Example {
				return Example{Op: &MatMul{}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3, 4}}, {DType: Float32, Shape: []int64{4, 5}}}}
			},
		},
		{
			Kind: "PRelu", Summary: "x for x >= 0, slope·x otherwise, slope broadcast to x",
			New:    func() Op { return &PRelu{} },
			Traits: Traits{Elementwise: true, Broadcasts: true, MathCost: 1},
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.prelu()) },
			Example: func() Example {
				return Example{Op: &PRelu{}, Inputs: []ExampleInput{exampleX, exampleF32(4, 1, 1)}}
			},
		},
		{
			Kind: "LeakyRelu", Summary: "x for x >= 0, alpha·x otherwise",
			New: func() Op { return &LeakyRelu{Alpha: 0.01} }, Traits: unaryElementwise(1), Infer: inferSame,
			Example: unaryExample(&LeakyRelu{Alpha: 0.1}),
		},
		{
			Kind: "Elu", Summary: "x for x > 0, alpha·(exp(x)-1) otherwise",
			New: func() Op { return &Elu{Alpha: 1} }, Traits: unaryElementwise(4), Infer: inferSame,
			Example: unaryExample(&Elu{Alpha: 0.7}),
		},
		{
			Kind: "Selu", Summary: "gamma·x for x > 0, gamma·alpha·(exp(x)-1) otherwise",
			New: func() Op { return &Selu{Alpha: SeluAlpha, Gamma: SeluGamma} }, Traits: unaryElementwise(5), Infer: inferSame,
			Example: unaryExample(&Selu{Alpha: SeluAlpha, Gamma: SeluGamma}),
		},
		{
			Kind: "Gelu", Summary: "Gaussian error linear unit, exact (erf) or tanh approximation",
			Decompose: geluExpand,
			New:       func() Op { return &Gelu{} }, Traits: unaryElementwise(8), Infer: inferSame,
			Check: func(c *CheckCtx) error {
				if a := c.N.Op.(*Gelu).Approximate; int(a) >= len(geluNames) {
					return c.Errorf("unknown Gelu approximation code %d", a)
				}
				return nil
			},
			Example: unaryExample(&Gelu{Approximate: GeluTanh}),
		},
		{
			Kind: "HardSigmoid", Summary: "max(0, min(1, alpha·x + beta))",
			New: func() Op { return &HardSigmoid{Alpha: 0.2, Beta: 0.5} }, Traits: unaryElementwise(2), Infer: inferSame,
			Example: unaryExample(&HardSigmoid{Alpha: 0.3, Beta: 0.4}),
		},
		{
			Kind: "Clip", Summary: "bound x to [min, max]; bounds as attributes or run-time scalars",
			New: func() Op { return NewClip() }, Traits: unaryElementwise(1),
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.clip()) },
			Example: func() Example {
				return Example{Op: &Clip{Min: -0.5, Max: float32(math.Inf(1))}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "Softmax", Summary: "softmax along one axis (opset-13 semantics)",
			RemapAxes:  softmaxRemap,
			HalfUnsafe: "exponentials and their sum exceed float16's range and precision",
			New:        func() Op { return &Softmax{Axis: -1} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.softmax(c.n.Op.(*Softmax))) },
			Example: func() Example {
				return Example{Op: &Softmax{Axis: 1}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "MaxPool", Summary: "max over windows, explicit pads, dilations, ceil mode",
			New: func() Op { return &MaxPool{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				op := c.n.Op.(*MaxPool)
				v, err := c.pool(op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode)
				idx := v
				idx.DType, idx.Shape = Int64, cloneDims(v.Shape)
				return []ValueInfo{v, idx}, err
			},
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*MaxPool)
				return c.pool(op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
			},
			Example: func() Example {
				return Example{Op: &MaxPool{Kernel: []int64{3, 3}, Strides: []int64{2, 2}, Dilations: []int64{1, 1},
					PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}, CeilMode: true}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "AveragePool", Summary: "mean over windows, explicit pads, ceil mode, with or without padding in the divisor",
			New: func() Op { return &AveragePool{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				op := c.n.Op.(*AveragePool)
				return one(c.pool(op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode))
			},
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*AveragePool)
				return c.pool(op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
			},
			Example: func() Example {
				return Example{Op: &AveragePool{Kernel: []int64{2, 2}, Strides: []int64{2, 2}, Dilations: []int64{1, 1},
					PadsBegin: []int64{1, 1}, PadsEnd: []int64{0, 0}}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "GlobalAveragePool", Summary: "mean over all spatial axes",
			New: func() Op { return &GlobalAveragePool{} }, Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.globalPool()) },
			Example: unaryExample(&GlobalAveragePool{}),
		},
		{
			Kind: "GlobalMaxPool", Summary: "max over all spatial axes",
			New: func() Op { return &GlobalMaxPool{} }, Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.globalPool()) },
			Example: unaryExample(&GlobalMaxPool{}),
		},
		{
			Kind: "Concat", Summary: "join inputs along one axis",
			NoopWhen:  concatNoop,
			RemapAxes: concatRemap,
			New:       func() Op { return &Concat{} },
			Infer:     func(c *InferCtx) ([]ValueInfo, error) { return one(c.concat(c.n.Op.(*Concat))) },
			Example: func() Example {
				return Example{Op: &Concat{Axis: 1}, Inputs: []ExampleInput{exampleX, {DType: Float32, Shape: []int64{1, 2, 5, 5}}}}
			},
		},
		{
			Kind: "Split", Summary: "cut along one axis into given sizes (constant or run-time)",
			RemapAxes: splitRemap,
			New:       func() Op { return &Split{} },
			Infer:     func(c *InferCtx) ([]ValueInfo, error) { return c.dynSplit(c.n.Op.(*Split)) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Split)
				if c.HasInput(1) {
					return nil
				}
				if len(op.Sizes) == 0 {
					return c.Errorf("Sizes is empty")
				}
				return c.AtLeast("Sizes", op.Sizes, 0)
			},
			Example: func() Example {
				return Example{Op: &Split{Axis: 1, Sizes: []int64{1, 3}}, Inputs: []ExampleInput{exampleX}, Outputs: 2}
			},
		},
		{
			Kind: "Reshape", Summary: "new shape with ONNX's 0 and -1 codes (constant or run-time)",
			New:    func() Op { return &Reshape{} },
			Traits: Traits{View: true},
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.reshape(c.n.Op.(*Reshape))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Reshape)
				if op.Shape == nil {
					if !c.HasInput(1) {
						return c.Errorf("has neither a Shape attribute nor a shape input")
					}
					return nil
				}
				if err := checkReshapeCodes(op.Shape, op.AllowZero); err != nil {
					return c.Errorf("%v", err)
				}
				return nil
			},
			Example: func() Example {
				return Example{Op: &Reshape{Shape: []int64{0, -1, 5}}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "Flatten", Summary: "reshape to 2-D around one axis",
			New: func() Op { return &Flatten{Axis: 1} }, Traits: Traits{View: true},
			Infer:   func(c *InferCtx) ([]ValueInfo, error) { return one(c.flatten(c.n.Op.(*Flatten))) },
			Example: unaryExample(&Flatten{Axis: 2}),
		},
		{
			Kind: "Transpose", Summary: "permute axes",
			NoopWhen: transposeNoop,
			New:      func() Op { return &Transpose{} },
			Infer:    func(c *InferCtx) ([]ValueInfo, error) { return one(c.transpose(c.n.Op.(*Transpose))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Transpose)
				seen := make([]bool, len(op.Perm))
				for _, p := range op.Perm {
					if p < 0 || p >= int64(len(op.Perm)) || seen[p] {
						return c.Errorf("Perm %v is not a permutation of 0..%d", op.Perm, len(op.Perm)-1)
					}
					seen[p] = true
				}
				return nil
			},
			Example: unaryExample(&Transpose{Perm: []int64{0, 2, 3, 1}}),
		},
		{
			Kind: "Squeeze", Summary: "remove size-1 axes (constant or run-time axes)",
			New: func() Op { return &Squeeze{} }, Traits: Traits{View: true},
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.dynSqueeze(c.n.Op.(*Squeeze))) },
			Example: func() Example {
				return Example{Op: &Squeeze{Axes: []int64{0}}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "Unsqueeze", Summary: "insert size-1 axes (constant or run-time axes)",
			New: func() Op { return &Unsqueeze{} }, Traits: Traits{View: true},
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.dynUnsqueeze(c.n.Op.(*Unsqueeze))) },
			Example: func() Example {
				return Example{Op: &Unsqueeze{Axes: []int64{2}}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "Pad", Summary: "constant, reflect, edge or wrap padding (constant or run-time pads, value and axes)",
			NoopWhen:  padNoop,
			RemapAxes: padRemap,
			New:       func() Op { return &Pad{} },
			Infer:     func(c *InferCtx) ([]ValueInfo, error) { return one(c.dynPad(c.n.Op.(*Pad))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Pad)
				if int(op.Mode) >= len(padModeNames) {
					return c.Errorf("unknown pad mode %d", op.Mode)
				}
				if len(op.PadsBegin) != len(op.PadsEnd) {
					return c.Errorf("PadsBegin %v and PadsEnd %v must have one entry per axis", op.PadsBegin, op.PadsEnd)
				}
				if op.Axes != nil && !c.HasInput(1) {
					return c.Errorf("has Axes %v but no Pads input; Axes only places a run-time Pads input, constant pads list every axis", op.Axes)
				}
				if c.HasInput(3) && !c.HasInput(1) {
					return c.Errorf("has an Axes input but no Pads input; Axes only places a run-time Pads input, constant pads list every axis")
				}
				return nil
			},
			Example: func() Example {
				return Example{Op: &Pad{Mode: PadReflect, PadsBegin: []int64{0, 0, 1, 2}, PadsEnd: []int64{0, 0, 2, 1}}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "Slice", Summary: "strided slices with ONNX clamping (constant or run-time parameters)",
			NoopWhen: sliceNoop,
			New:      func() Op { return &Slice{} },
			Infer:    func(c *InferCtx) ([]ValueInfo, error) { return one(c.dynSlice(c.n.Op.(*Slice))) },
			Check:    checkSlice,
			Example: func() Example {
				return Example{Op: &Slice{Starts: []int64{1, 0}, Ends: []int64{4, 5}, Axes: []int64{2, 3}, Steps: []int64{2, 1}}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "Gather", Summary: "take entries along one axis at given indices",
			New:   func() Op { return &Gather{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.gather(c.n.Op.(*Gather))) },
			Example: func() Example {
				idx := ExampleInput{DType: Int64, Shape: []int64{2}, Const: NewInt64Tensor("", []int64{2}, []int64{3, -1})}
				return Example{Op: &Gather{Axis: 1}, Inputs: []ExampleInput{exampleX, idx}}
			},
		},
		{
			Kind: "Shape", Summary: "the input's shape as an int64 tensor",
			New:     func() Op { return NewShapeOf() },
			Infer:   func(c *InferCtx) ([]ValueInfo, error) { return one(c.shapeOf(c.n.Op.(*ShapeOf))) },
			Example: unaryExample(NewShapeOf()),
		},
		{
			Kind: "Constant", Summary: "a constant tensor",
			New: func() Op { return &Constant{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				t := c.n.Op.(*Constant).Value
				return one(ValueInfo{DType: t.DType, Shape: DimsOf(t.Shape...), RankKnown: true, Const: t}, nil)
			},
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Constant)
				if op.Value == nil {
					return c.Errorf("has no value")
				}
				if !op.Value.DType.Valid() {
					return c.Errorf("value has invalid dtype %s", op.Value.DType)
				}
				if err := op.Value.CheckData(); err != nil {
					return c.Errorf("%v", err)
				}
				return nil
			},
			Example: func() Example { return Example{Op: &Constant{Value: exampleF32(2, 3).Const}} },
		},
		{
			Kind: "Identity", Summary: "copy",
			New: func() Op { return &Identity{} }, Traits: Traits{View: true, InferenceIdentity: true},
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				v := c.in[0]
				v.Name = ""
				v.Const = constOf(v)
				return one(v, nil)
			},
			Example: unaryExample(&Identity{}),
		},
		{
			Kind: "Dropout", Summary: "identity at inference; optional all-true mask",
			New:    func() Op { return &Dropout{Ratio: 0.5} },
			Traits: Traits{InferenceIdentity: true},
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				x := c.in[0]
				if c.present(1) && c.in[1].DType != Undefined && !c.in[1].DType.IsFloat() {
					return nil, c.errf("Ratio %q is %s, want a floating-point scalar", c.n.Inputs[1], c.in[1].DType)
				}
				if c.present(2) && c.in[2].DType != Undefined && c.in[2].DType != Bool {
					return nil, c.errf("TrainingMode %q is %s, want a bool scalar", c.n.Inputs[2], c.in[2].DType)
				}
				out := ValueInfo{DType: x.DType, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}
				mask := ValueInfo{DType: Bool, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}
				return []ValueInfo{out, mask}, nil
			},
			Example: unaryExample(&Dropout{Ratio: 0.25}),
		},
		{
			Kind: "Resize", Summary: "nearest, (multi)linear or cubic resampling by scales or sizes (constant or run-time), any coordinate transform, antialias, roi",
			NoopWhen:   resizeNoop,
			HalfUnsafe: "its scales and region of interest are float32 in ONNX",
			New:        func() Op { return &Resize{} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.dynResize(c.n.Op.(*Resize))) },
			Check:      checkResize,
			Example: func() Example {
				return Example{Op: &Resize{Sizes: []int64{1, 4, 8, 3}, Mode: ResizeLinear, CoordTransform: HalfPixel}, Inputs: []ExampleInput{exampleX}}
			},
		},
	}
	for fn, name := range binaryNames {
		defs = append(defs, &OpDef{
			Kind: name, Summary: "elementwise " + name + " with NumPy broadcasting",
			New:    func() Op { return &Binary{Fn: BinaryFn(fn)} },
			Traits: Traits{Elementwise: true, Broadcasts: true, MathCost: 1, Affine: true},
			Infer:  func(c *InferCtx) ([]ValueInfo, error) { return one(c.binary(c.n.Op.(*Binary))) },
			Example: func() Example {
				b := exampleF32(4, 1, 1)
				if BinaryFn(fn) == Div {
					b.Const = positive(b.Const)
				}
				return Example{Op: &Binary{Fn: BinaryFn(fn)}, Inputs: []ExampleInput{exampleX, b}}
			},
		})
	}
	unaryCost := [...]float64{Relu: 1, Sigmoid: 4, Tanh: 4, HardSwish: 3, Softplus: 5, Softsign: 2}
	unarySummary := [...]string{Relu: "max(x, 0)", Sigmoid: "1/(1+exp(-x))", Tanh: "tanh(x)", HardSwish: "x·HardSigmoid(x) with alpha 1/6, beta 1/2",
		Softplus: "log(1+exp(x))", Softsign: "x/(1+|x|)"}
	for fn, name := range unaryNames {
		defs = append(defs, &OpDef{
			Kind: name, Summary: unarySummary[fn],
			New:     func() Op { return &Unary{Fn: UnaryFn(fn)} },
			Traits:  unaryElementwise(unaryCost[fn]),
			Infer:   inferSame,
			Example: unaryExample(&Unary{Fn: UnaryFn(fn)}),
		})
		if UnaryFn(fn) == HardSwish {
			defs[len(defs)-1].Decompose = hardSwishExpand
		}
	}
	return defs
}

func checkConvTranspose(c *CheckCtx) error {
	op := c.N.Op.(*ConvTranspose)
	if op.Group < 1 {
		return c.Errorf("Group is %d, must be >= 1", op.Group)
	}
	if err := firstErr(
		c.sameLen(namedInts{"Strides", op.Strides}, namedInts{"Dilations", op.Dilations}, namedInts{"PadsBegin", op.PadsBegin},
			namedInts{"PadsEnd", op.PadsEnd}, namedInts{"OutputPadding", op.OutputPadding}),
		c.AtLeast("Strides", op.Strides, 1), c.AtLeast("Dilations", op.Dilations, 1),
		c.AtLeast("PadsBegin", op.PadsBegin, 0), c.AtLeast("PadsEnd", op.PadsEnd, 0),
		c.AtLeast("OutputPadding", op.OutputPadding, 0)); err != nil {
		return err
	}
	for i, p := range op.OutputPadding {
		// Larger output padding would add rows no input reaches.
		if p >= op.Strides[i] && p >= op.Dilations[i] {
			return c.Errorf("OutputPadding %v: %d on axis %d must be smaller than the stride (%d) or the dilation (%d)", op.OutputPadding, p, i, op.Strides[i], op.Dilations[i])
		}
	}
	return nil
}

func checkSlice(c *CheckCtx) error {
	op := c.N.Op.(*Slice)
	// Only the parameters given as attributes can be compared here; a
	// run-time input is checked against them when its value is known.
	n0 := -1
	for i, v := range [][]int64{op.Starts, op.Ends, op.Axes, op.Steps} {
		if c.HasInput(i+1) || (v == nil && i >= 2) {
			continue
		}
		if n0 >= 0 && len(v) != n0 {
			return c.Errorf("Starts %v, Ends %v, Axes %v and Steps %v must have the same length", op.Starts, op.Ends, op.Axes, op.Steps)
		}
		n0 = len(v)
	}
	for _, s := range op.Steps {
		if s == 0 {
			return c.Errorf("Steps %v has a 0 step", op.Steps)
		}
	}
	return nil
}

func checkResize(c *CheckCtx) error {
	op := c.N.Op.(*Resize)
	given := 0
	for _, b := range []bool{op.Scales != nil, op.Sizes != nil, c.HasInput(1), c.HasInput(2)} {
		if b {
			given++
		}
	}
	if given != 1 {
		return c.Errorf("needs exactly one of Scales %v, Sizes %v, a scales input and a sizes input", op.Scales, op.Sizes)
	}
	for _, s := range op.Scales {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return c.Errorf("Scales %v: every scale must be finite and > 0", op.Scales)
		}
	}
	if err := c.AtLeast("Sizes", op.Sizes, 0); err != nil {
		return err
	}
	if int(op.CoordTransform) >= len(coordNames) || int(op.Nearest) >= len(nearestNames) {
		return c.Errorf("unknown coordinate transform %d or nearest mode %d", op.CoordTransform, op.Nearest)
	}
	return checkResizeModes(c, op)
}

// coreWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var coreWithout = Without{Accumulation: SumsNoProducts, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
