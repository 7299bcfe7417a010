package canon

// The quantized family: linear quantization (ONNX QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear) and the integer convolutions
// and matrix products (QLinearConv, QLinearMatMul, ConvInteger,
// MatMulInteger). Scales and zero points are run-time inputs; a scale is
// per tensor (a scalar or one element), per axis (1-D along Axis) or
// blocked (X's rank, Axis divided into blocks of BlockSize).

func init() {
	Register(withReason(&OpDef{
		Kind: "QuantizeLinear", Summary: "y = saturate(round_half_even(x / scale) + zero_point), per tensor, per axis or blocked",
		New:   func() Op { return &QuantizeLinear{Axis: 1, Saturate: true} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.quantizeLinear()) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*QuantizeLinear)
			if op.BlockSize < 0 {
				return c.Errorf("BlockSize %d must be >= 0", op.BlockSize)
			}
			if op.OutputDType != Undefined && !QuantizedDType(op.OutputDType) {
				return c.Errorf("OutputDType %s is not a quantized type (i8, u8, i16, u16)", op.OutputDType)
			}
			return nil
		},
		Example: func() Example {
			return Example{Op: &QuantizeLinear{Axis: 1, Saturate: true}, Inputs: []ExampleInput{exampleX,
				{DType: Float32, Shape: []int64{4}, Const: NewFloat32Tensor("", []int64{4}, []float32{0.01, 0.02, 0.05, 0.1})},
				exampleInts(Int8, []int64{4}, []int64{0, -3, 7, 1})}}
		},
	}, quantWithout))
	Register(withReason(&OpDef{
		Kind: "DequantizeLinear", Summary: "y = (x - zero_point) · scale, per tensor, per axis or blocked",
		New:   func() Op { return &DequantizeLinear{Axis: 1} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.dequantizeLinear()) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*DequantizeLinear)
			if op.BlockSize < 0 {
				return c.Errorf("BlockSize %d must be >= 0", op.BlockSize)
			}
			if op.OutputDType != Undefined && !op.OutputDType.IsFloat() {
				return c.Errorf("OutputDType %s is not a floating-point type", op.OutputDType)
			}
			return nil
		},
		Example: func() Example {
			return Example{Op: &DequantizeLinear{Axis: 0}, Inputs: []ExampleInput{
				exampleInts(Uint8, []int64{3, 4}, []int64{0, 1, 2, 3, 100, 128, 200, 255, 7, 9, 11, 13}),
				{DType: Float32, Shape: []int64{3}, Const: NewFloat32Tensor("", []int64{3}, []float32{0.5, 0.25, 2})},
				exampleInts(Uint8, []int64{3}, []int64{0, 128, 3})}}
		},
	}, quantWithout))
	Register(withReason(&OpDef{
		Kind: "DynamicQuantizeLinear", Summary: "uint8 quantization of a float tensor with scale and zero point from its range (including 0)",
		New:   func() Op { return &DynamicQuantizeLinear{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return c.dynamicQuantizeLinear() },
		Example: func() Example {
			return Example{Op: &DynamicQuantizeLinear{}, Inputs: []ExampleInput{exampleX}, Outputs: 3}
		},
	}, quantWithout))
	Register(withReason(&OpDef{
		Kind: "QLinearConv", Summary: "quantized N-D convolution, weight OIHW, int32 accumulation and requantization",
		AccumulationLength: kernelSum(3),
		New:                func() Op { return &QLinearConv{Group: 1} },
		Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.qlinearConv()) },
		Check:              func(c *CheckCtx) error { return checkIntConv(c, c.N.Op.(*QLinearConv).Conv()) },
		Example: func() Example {
			return Example{Op: &QLinearConv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 0}, PadsEnd: []int64{1, 0}, Group: 1},
				Inputs: []ExampleInput{
					exampleInts(Uint8, []int64{1, 2, 3, 3}, []int64{0, 10, 20, 30, 40, 50, 60, 70, 80, 255, 128, 3, 9, 27, 81, 243, 1, 2}),
					scalarF32(0.05), exampleInts(Uint8, nil, []int64{20}),
					exampleInts(Int8, []int64{3, 2, 2, 2}, exampleIndices(24, -100, 100)),
					{DType: Float32, Shape: []int64{3}, Const: NewFloat32Tensor("", []int64{3}, []float32{0.01, 0.02, 0.005})},
					exampleInts(Int8, []int64{3}, []int64{0, 0, 0}),
					scalarF32(0.1), exampleInts(Uint8, nil, []int64{128}),
					exampleInts(Int32, []int64{3}, []int64{-500, 0, 1200}),
				}}
		},
	}, quantWithout))
	Register(withReason(&OpDef{
		Kind: "ConvInteger", Summary: "integer N-D convolution with zero points, weight OIHW, int32 output",
		AccumulationLength: kernelSum(1),
		New:                func() Op { return &ConvInteger{Group: 1} },
		Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.convInteger()) },
		Check:              func(c *CheckCtx) error { return checkIntConv(c, c.N.Op.(*ConvInteger).Conv()) },
		Example: func() Example {
			return Example{Op: &ConvInteger{Strides: []int64{2, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 1}, PadsEnd: []int64{0, 1}, Group: 1},
				Inputs: []ExampleInput{
					exampleInts(Uint8, []int64{1, 1, 3, 3}, []int64{2, 3, 4, 5, 6, 7, 8, 9, 10}),
					exampleInts(Uint8, []int64{2, 1, 2, 2}, []int64{1, 1, 1, 1, 2, 0, 3, 1}),
					exampleInts(Uint8, nil, []int64{1}),
				}}
		},
	}, quantWithout))
	Register(withReason(&OpDef{
		Kind: "MatMulInteger", Summary: "integer matrix product with zero points, int32 output",
		AccumulationLength: lastDimOf(0),
		New:                func() Op { return &MatMulInteger{} },
		Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.matMulInteger()) },
		Example: func() Example {
			return Example{Op: &MatMulInteger{}, Inputs: []ExampleInput{
				exampleInts(Uint8, []int64{2, 3}, []int64{11, 7, 3, 10, 6, 2}),
				exampleInts(Uint8, []int64{3, 2}, []int64{1, 4, 2, 5, 3, 6}),
				exampleInts(Uint8, nil, []int64{12}),
				exampleInts(Uint8, nil, []int64{0}),
			}}
		},
	}, quantWithout))
	Register(withReason(&OpDef{
		Kind: "QLinearMatMul", Summary: "quantized matrix product: int32 accumulation of (a-a_zp)(b-b_zp), requantized",
		AccumulationLength: lastDimOf(0),
		New:                func() Op { return &QLinearMatMul{} },
		Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.qlinearMatMul()) },
		Example: func() Example {
			return Example{Op: &QLinearMatMul{}, Inputs: []ExampleInput{
				exampleInts(Uint8, []int64{2, 4}, []int64{208, 236, 0, 238, 3, 214, 255, 29}),
				scalarF32(0.0066), exampleInts(Uint8, nil, []int64{113}),
				exampleInts(Uint8, []int64{4, 3}, []int64{152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}),
				scalarF32(0.00705), exampleInts(Uint8, nil, []int64{114}),
				scalarF32(0.0107), exampleInts(Uint8, nil, []int64{118}),
			}}
		},
	}, quantWithout))
}

func scalarF32(v float32) ExampleInput {
	return ExampleInput{DType: Float32, Shape: []int64{}, Const: NewFloat32Tensor("", []int64{}, []float32{v})}
}

// QuantizedDType reports whether d is a type QuantizeLinear may produce.
func QuantizedDType(d DType) bool {
	switch d {
	case Int8, Uint8, Int16, Uint16:
		return true
	}
	return false
}

// QuantRange is the range of values of the integer type d.
func QuantRange(d DType) (lo, hi int64) {
	switch d {
	case Int8:
		return -128, 127
	case Uint8:
		return 0, 255
	case Int16:
		return -32768, 32767
	case Uint16:
		return 0, 65535
	case Int32:
		return -1 << 31, 1<<31 - 1
	}
	return 0, 0
}

// QuantizeLinear quantizes X with Scale and the optional ZeroPoint (inputs
// X, Scale, ZeroPoint). The output type is ZeroPoint's; without one it is
// OutputDType, or uint8 when that is Undefined. Saturate only matters for
// float8 outputs, which the IR does not hold: integers always saturate.
type QuantizeLinear struct {
	Axis        int64
	BlockSize   int64
	Saturate    bool
	OutputDType DType
}

func (*QuantizeLinear) Kind() string { return "QuantizeLinear" }
func (*QuantizeLinear) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "Scale"}, InputSpec{Name: "ZeroPoint", Optional: true})
}

// DequantizeLinear computes (X - ZeroPoint) · Scale; the output has
// Scale's type, or OutputDType when set.
type DequantizeLinear struct {
	Axis        int64
	BlockSize   int64
	OutputDType DType
}

func (*DequantizeLinear) Kind() string { return "DequantizeLinear" }
func (*DequantizeLinear) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "Scale"}, InputSpec{Name: "ZeroPoint", Optional: true})
}

// DynamicQuantizeLinear outputs Y (uint8), its scale (f32 scalar) and zero
// point (uint8 scalar): the range [min(0, min x), max(0, max x)] is mapped
// onto [0, 255].
type DynamicQuantizeLinear struct{}

func (*DynamicQuantizeLinear) Kind() string { return "DynamicQuantizeLinear" }
func (*DynamicQuantizeLinear) Signature() Signature {
	return Signature{Inputs: []InputSpec{inX}, MinOutputs: 3, MaxOutputs: 3}
}

// QLinearConv is Conv on quantized data: inputs X, XScale, XZeroPoint, W
// (layout OI+spatial), WScale, WZeroPoint (per tensor or per output
// channel), YScale, YZeroPoint and an optional int32 bias.
type QLinearConv struct {
	Strides   []int64
	Dilations []int64
	PadsBegin []int64
	PadsEnd   []int64
	Group     int64
}

func (*QLinearConv) Kind() string { return "QLinearConv" }
func (*QLinearConv) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "XScale"}, InputSpec{Name: "XZeroPoint"},
		InputSpec{Name: "W", Role: RoleConvWeight}, InputSpec{Name: "WScale"}, InputSpec{Name: "WZeroPoint"},
		InputSpec{Name: "YScale"}, InputSpec{Name: "YZeroPoint"}, inBias)
}

// Conv is the float convolution with the same window.
func (op *QLinearConv) Conv() *Conv {
	return &Conv{Strides: op.Strides, Dilations: op.Dilations, PadsBegin: op.PadsBegin, PadsEnd: op.PadsEnd, Group: op.Group}
}

// ConvInteger is an integer convolution (inputs X, W in layout
// OI+spatial, optional XZeroPoint and WZeroPoint) with an int32 output.
type ConvInteger struct {
	Strides   []int64
	Dilations []int64
	PadsBegin []int64
	PadsEnd   []int64
	Group     int64
}

func (*ConvInteger) Kind() string { return "ConvInteger" }
func (*ConvInteger) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "W", Role: RoleConvWeight},
		InputSpec{Name: "XZeroPoint", Optional: true}, InputSpec{Name: "WZeroPoint", Optional: true})
}

// Conv is the float convolution with the same window.
func (op *ConvInteger) Conv() *Conv {
	return &Conv{Strides: op.Strides, Dilations: op.Dilations, PadsBegin: op.PadsBegin, PadsEnd: op.PadsEnd, Group: op.Group}
}

// MatMulInteger is (A - AZeroPoint)·(B - BZeroPoint) in int32; A's zero
// point is a scalar or one per row, B's a scalar or one per column.
type MatMulInteger struct{}

func (*MatMulInteger) Kind() string { return "MatMulInteger" }
func (*MatMulInteger) Signature() Signature {
	return sig(1, inA, inB, InputSpec{Name: "AZeroPoint", Optional: true}, InputSpec{Name: "BZeroPoint", Optional: true})
}

// QLinearMatMul is MatMul on quantized data: inputs A, AScale, AZeroPoint,
// B, BScale, BZeroPoint, YScale, YZeroPoint.
type QLinearMatMul struct{}

func (*QLinearMatMul) Kind() string { return "QLinearMatMul" }
func (*QLinearMatMul) Signature() Signature {
	return sig(1, inA, InputSpec{Name: "AScale"}, InputSpec{Name: "AZeroPoint"},
		inB, InputSpec{Name: "BScale"}, InputSpec{Name: "BZeroPoint"},
		InputSpec{Name: "YScale"}, InputSpec{Name: "YZeroPoint"})
}

func checkIntConv(c *CheckCtx, op *Conv) error {
	if op.Group < 1 {
		return c.Errorf("Group is %d, must be >= 1", op.Group)
	}
	return firstErr(
		c.sameLen(namedInts{"Strides", op.Strides}, namedInts{"Dilations", op.Dilations}, namedInts{"PadsBegin", op.PadsBegin}, namedInts{"PadsEnd", op.PadsEnd}),
		c.AtLeast("Strides", op.Strides, 1), c.AtLeast("Dilations", op.Dilations, 1),
		c.AtLeast("PadsBegin", op.PadsBegin, 0), c.AtLeast("PadsEnd", op.PadsEnd, 0))
}

// ---- inference ----

func isQuantInput(d DType) bool { return QuantizedDType(d) || d == Int32 }

// quantParams checks Scale (input s) and the zero point (input z) against
// X (input 0) for per-tensor, per-axis or blocked quantization.
func (c *InferCtx) quantParams(s, z int, axis, block int64) error {
	if err := c.needDType(s, DType.IsFloat, "a floating-point scale"); err != nil {
		return err
	}
	x, sc := c.in[0], c.in[s]
	if c.present(z) {
		zp := c.in[z]
		if zp.RankKnown && sc.RankKnown && fmtShape(zp) != fmtShape(sc) {
			return c.errf("%s has shape %s but %s has shape %s; they must match", c.slot(z), fmtShape(zp), c.slot(s), fmtShape(sc))
		}
	}
	if !sc.RankKnown {
		return nil
	}
	perTensor := len(sc.Shape) == 0 || (len(sc.Shape) == 1 && sc.Shape[0].Known() && sc.Shape[0].Size == 1)
	if block == 0 && perTensor {
		return nil
	}
	if !x.RankKnown {
		return nil
	}
	a, ok := normAxis(axis, len(x.Shape))
	if !ok {
		return c.errf("axis %d is out of range for input X of shape %s", axis, fmtShape(x))
	}
	d := x.Shape[a]
	if block > 0 {
		if len(sc.Shape) != len(x.Shape) {
			return c.errf("blocked quantization needs %s of X's rank %d; it has shape %s", c.slot(s), len(x.Shape), fmtShape(sc))
		}
		for i, sd := range sc.Shape {
			want := x.Shape[i]
			if i == a && want.Known() {
				want = knownDim((want.Size + block - 1) / block)
			}
			if sd.Known() && want.Known() && sd.Size != want.Size {
				return c.errf("%s has shape %s; with block size %d along axis %d of X %s it needs %s on axis %d", c.slot(s), fmtShape(sc), block, a, fmtShape(x), fmtDims([]Dim{want}), i)
			}
		}
		return nil
	}
	if len(sc.Shape) != 1 {
		return c.errf("%s has shape %s: a scale is a scalar, a 1-D tensor along the axis, or (with a block size) of X's rank", c.slot(s), fmtShape(sc))
	}
	if sc.Shape[0].Known() && d.Known() && sc.Shape[0].Size != d.Size {
		return c.errf("%s has %d values but axis %d of X %s has size %d", c.slot(s), sc.Shape[0].Size, a, fmtShape(x), d.Size)
	}
	return nil
}

func (c *InferCtx) quantizeLinear() (ValueInfo, error) {
	op := c.n.Op.(*QuantizeLinear)
	if err := c.needDType(0, func(d DType) bool { return d.IsFloat() || d == Int32 }, "floating-point or int32 data"); err != nil {
		return ValueInfo{}, err
	}
	out := op.OutputDType
	if c.present(2) {
		if err := c.needDType(2, QuantizedDType, "an i8, u8, i16 or u16 zero point"); err != nil {
			return ValueInfo{}, err
		}
		if zd := c.in[2].DType; zd != Undefined {
			if out != Undefined && out != zd {
				return ValueInfo{}, c.errf("output type %s differs from ZeroPoint %q's type %s", out, c.n.Inputs[2], zd)
			}
			out = zd
		}
	}
	if out == Undefined {
		out = Uint8
	}
	if err := c.quantParams(1, 2, op.Axis, op.BlockSize); err != nil {
		return ValueInfo{}, err
	}
	x := c.in[0]
	return ValueInfo{DType: out, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}, nil
}

func (c *InferCtx) dequantizeLinear() (ValueInfo, error) {
	op := c.n.Op.(*DequantizeLinear)
	if err := c.needDType(0, isQuantInput, "i8, u8, i16, u16 or i32 data"); err != nil {
		return ValueInfo{}, err
	}
	if c.present(2) {
		if err := c.sameDType(0, 2); err != nil {
			return ValueInfo{}, err
		}
	}
	if err := c.quantParams(1, 2, op.Axis, op.BlockSize); err != nil {
		return ValueInfo{}, err
	}
	out := op.OutputDType
	if out == Undefined {
		out = c.in[1].DType
	}
	x := c.in[0]
	return ValueInfo{DType: out, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}, nil
}

func (c *InferCtx) dynamicQuantizeLinear() ([]ValueInfo, error) {
	if err := c.needDType(0, func(d DType) bool { return d == Float32 }, "f32 data"); err != nil {
		return nil, err
	}
	x := c.in[0]
	return []ValueInfo{
		{DType: Uint8, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown},
		{DType: Float32, Shape: []Dim{}, RankKnown: true},
		{DType: Uint8, Shape: []Dim{}, RankKnown: true},
	}, nil
}

// scalarOrVector checks that input i (when present) is a scalar, or a 1-D
// tensor of size 1 or n (when n is known).
func (c *InferCtx) scalarOrVector(i int, n Dim, what string) error {
	if !c.present(i) || !c.in[i].RankKnown {
		return nil
	}
	v := c.in[i]
	switch len(v.Shape) {
	case 0:
		return nil
	case 1:
		d := v.Shape[0]
		if !d.Known() || d.Size == 1 || !n.Known() || d.Size == n.Size {
			return nil
		}
	}
	return c.errf("%s has shape %s; it must be a scalar or hold one value per %s (%s)", c.slot(i), fmtShape(v), what, fmtDims([]Dim{n}))
}

// scalar checks that input i is a scalar or a one-element 1-D tensor.
func (c *InferCtx) scalarIn(i int) error {
	return c.scalarOrVector(i, knownDim(1), "tensor")
}

// integerConv infers a conv-like node on integer data x (input 0) and w
// (input wi) with the float Conv's shape rules.
func (c *InferCtx) integerConv(op *Conv, wi int, bias int) (ValueInfo, error) {
	for _, i := range []int{0, wi} {
		if err := c.needDType(i, func(d DType) bool { return d == Int8 || d == Uint8 }, "i8 or u8 data"); err != nil {
			return ValueInfo{}, err
		}
	}
	w := c.in[wi]
	w.DType = c.in[0].DType
	ins, in := []string{c.n.Inputs[0], c.n.Inputs[wi]}, []ValueInfo{c.in[0], w}
	if bias >= 0 && c.present(bias) {
		ins, in = append(ins, c.n.Inputs[bias]), append(in, c.in[bias])
	}
	sub := &InferCtx{n: &Node{Name: c.n.Name, Op: op, Inputs: ins}, in: in}
	return sub.conv(op)
}

func (c *InferCtx) qlinearConv() (ValueInfo, error) {
	op := c.n.Op.(*QLinearConv)
	if c.present(8) {
		if err := c.needDType(8, func(d DType) bool { return d == Int32 }, "an i32 bias"); err != nil {
			return ValueInfo{}, err
		}
	}
	for _, s := range []int{1, 4, 6} {
		if err := c.needDType(s, func(d DType) bool { return d == Float32 }, "an f32 scale"); err != nil {
			return ValueInfo{}, err
		}
	}
	for _, p := range [][2]int{{0, 2}, {3, 5}} {
		if err := c.sameDType(p[0], p[1]); err != nil {
			return ValueInfo{}, err
		}
	}
	if err := c.needDType(7, func(d DType) bool { return d == Int8 || d == Uint8 }, "an i8 or u8 zero point"); err != nil {
		return ValueInfo{}, err
	}
	out, err := c.integerConv(op.Conv(), 3, 8)
	if err != nil {
		return ValueInfo{}, err
	}
	cout := dimAt(c.in[3], 0)
	if err := firstErr(c.scalarIn(1), c.scalarIn(2), c.scalarIn(6), c.scalarIn(7),
		c.scalarOrVector(4, cout, "output channel"), c.scalarOrVector(5, cout, "output channel")); err != nil {
		return ValueInfo{}, err
	}
	out.DType = c.in[7].DType
	return out, nil
}

func (c *InferCtx) convInteger() (ValueInfo, error) {
	op := c.n.Op.(*ConvInteger)
	for _, p := range [][2]int{{0, 2}, {1, 3}} {
		if c.present(p[1]) {
			if err := c.sameDType(p[0], p[1]); err != nil {
				return ValueInfo{}, err
			}
		}
	}
	out, err := c.integerConv(op.Conv(), 1, -1)
	if err != nil {
		return ValueInfo{}, err
	}
	if err := firstErr(c.scalarIn(2), c.scalarOrVector(3, dimAt(c.in[1], 0), "output channel")); err != nil {
		return ValueInfo{}, err
	}
	out.DType = Int32
	return out, nil
}

// integerMatMul infers the product of integer inputs a and b.
func (c *InferCtx) integerMatMul(a, b int) (ValueInfo, error) {
	for _, i := range []int{a, b} {
		if err := c.needDType(i, func(d DType) bool { return d == Int8 || d == Uint8 }, "i8 or u8 data"); err != nil {
			return ValueInfo{}, err
		}
	}
	bv := c.in[b]
	bv.DType = c.in[a].DType
	sub := &InferCtx{n: &Node{Name: c.n.Name, Op: &MatMul{}, Inputs: []string{c.n.Inputs[a], c.n.Inputs[b]}}, in: []ValueInfo{c.in[a], bv}}
	return sub.matMul()
}

// lastDims are the row count of A and the column count of B.
func (c *InferCtx) lastDims(a, b int) (rows, cols Dim) {
	rows, cols = unknownDim, unknownDim
	if av := c.in[a]; av.RankKnown && len(av.Shape) >= 2 {
		rows = av.Shape[len(av.Shape)-2]
	}
	if bv := c.in[b]; bv.RankKnown && len(bv.Shape) >= 2 {
		cols = bv.Shape[len(bv.Shape)-1]
	}
	return rows, cols
}

func (c *InferCtx) matMulInteger() (ValueInfo, error) {
	for _, p := range [][2]int{{0, 2}, {1, 3}} {
		if c.present(p[1]) {
			if err := c.sameDType(p[0], p[1]); err != nil {
				return ValueInfo{}, err
			}
		}
	}
	out, err := c.integerMatMul(0, 1)
	if err != nil {
		return ValueInfo{}, err
	}
	rows, cols := c.lastDims(0, 1)
	if err := firstErr(c.scalarOrVector(2, rows, "row of A"), c.scalarOrVector(3, cols, "column of B")); err != nil {
		return ValueInfo{}, err
	}
	out.DType = Int32
	return out, nil
}

func (c *InferCtx) qlinearMatMul() (ValueInfo, error) {
	for _, s := range []int{1, 4, 6} {
		if err := c.needDType(s, DType.IsFloat, "a floating-point scale"); err != nil {
			return ValueInfo{}, err
		}
	}
	for _, p := range [][2]int{{0, 2}, {3, 5}} {
		if err := c.sameDType(p[0], p[1]); err != nil {
			return ValueInfo{}, err
		}
	}
	if err := c.needDType(7, func(d DType) bool { return d == Int8 || d == Uint8 }, "an i8 or u8 zero point"); err != nil {
		return ValueInfo{}, err
	}
	out, err := c.integerMatMul(0, 3)
	if err != nil {
		return ValueInfo{}, err
	}
	rows, cols := c.lastDims(0, 3)
	if err := firstErr(c.scalarOrVector(1, rows, "row of A"), c.scalarOrVector(2, rows, "row of A"),
		c.scalarOrVector(4, cols, "column of B"), c.scalarOrVector(5, cols, "column of B"),
		c.scalarIn(6), c.scalarIn(7)); err != nil {
		return ValueInfo{}, err
	}
	out.DType = c.in[7].DType
	return out, nil
}

// quantWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var quantWithout = Without{Accumulation: SumsNothing, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
