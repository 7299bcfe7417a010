package canon

// DeformConv: ONNX DeformConv-19, torchvision::deform_conv2d.

func init() {
	Register(withReason(&OpDef{
		Kind: "DeformConv", Summary: "2-D deformable convolution: each kernel tap sampled bilinearly at a learned offset, optionally masked",
		AccumulationLength: kernelSum(1),
		HalfUnsafe:         "long accumulating sums",
		New:                func() Op { return &DeformConv{Group: 1, OffsetGroup: 1} },
		Infer:              func(c *InferCtx) ([]ValueInfo, error) { return one(c.deformConv(c.n.Op.(*DeformConv))) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*DeformConv)
			if op.Group < 1 || op.OffsetGroup < 1 {
				return c.Errorf("Group %d and OffsetGroup %d must be >= 1", op.Group, op.OffsetGroup)
			}
			if len(op.Strides) != 2 {
				return c.Errorf("Strides %v: DeformConv is two-dimensional", op.Strides)
			}
			return firstErr(
				c.sameLen(namedInts{"Strides", op.Strides}, namedInts{"Dilations", op.Dilations}, namedInts{"PadsBegin", op.PadsBegin}, namedInts{"PadsEnd", op.PadsEnd}),
				c.AtLeast("Strides", op.Strides, 1), c.AtLeast("Dilations", op.Dilations, 1),
				c.AtLeast("PadsBegin", op.PadsBegin, 0), c.AtLeast("PadsEnd", op.PadsEnd, 0))
		},
		Example: func() Example {
			return Example{
				Op: &DeformConv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}, Group: 2, OffsetGroup: 2},
				Inputs: []ExampleInput{exampleX, exampleF32(4, 2, 3, 3), {DType: Float32, Shape: []int64{1, 36, 5, 5}}, exampleF32(4),
					{DType: Float32, Shape: []int64{1, 18, 5, 5}}},
			}
		},
	}, deformWithout))
}

// DeformConv is a 2-D convolution whose kernel tap (i, j) at output
// position (y, x) reads X at (y·s + i·d - pad + Δy, x·s + j·d - pad + Δx)
// by bilinear interpolation (zero outside the map), times Mask when given.
// Offset is (N, OffsetGroup·2·kH·kW, oH, oW), pairs (Δy, Δx) per tap; Mask
// (N, OffsetGroup·kH·kW, oH, oW); input channel c uses offset group
// c / (C / OffsetGroup), as torchvision and ONNX Runtime do. W is OIHW.
type DeformConv struct {
	Strides     []int64
	Dilations   []int64
	PadsBegin   []int64
	PadsEnd     []int64
	Group       int64
	OffsetGroup int64
}

func (*DeformConv) Kind() string { return "DeformConv" }
func (*DeformConv) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "W", Role: RoleConvWeight}, InputSpec{Name: "Offset"}, inBias,
		InputSpec{Name: "Mask", Optional: true})
}

func (c *InferCtx) deformConv(op *DeformConv) (ValueInfo, error) {
	bias := ""
	ins := []ValueInfo{c.in[0], c.in[1], {}}
	if c.present(3) {
		bias, ins[2] = c.n.Inputs[3], c.in[3]
	}
	plain := &InferCtx{n: &Node{Name: c.n.Name, Op: c.n.Op, Inputs: []string{c.n.Inputs[0], c.n.Inputs[1], bias}, Outputs: c.n.Outputs}, in: ins}
	out, err := plain.conv(&Conv{Strides: op.Strides, Dilations: op.Dilations, PadsBegin: op.PadsBegin, PadsEnd: op.PadsEnd, Group: op.Group})
	if err != nil {
		return ValueInfo{}, err
	}
	if err := c.sameDType(0, 2); err != nil {
		return ValueInfo{}, err
	}
	if err := c.needRank(2, 4, "DeformConv offsets (N, 2·offset_group·kH·kW, oH, oW)"); err != nil {
		return ValueInfo{}, err
	}
	x, w, off := c.in[0], c.in[1], c.in[2]
	if cin := dimAt(x, 1); cin.Known() && cin.Size%op.OffsetGroup != 0 {
		return ValueInfo{}, c.errf("input X has %d channels, not divisible by offset_group %d", cin.Size, op.OffsetGroup)
	}
	kh, kw := dimAt(w, 2), dimAt(w, 3)
	check := func(i int, v ValueInfo, per int64, what string) error {
		if d := dimAt(v, 1); d.Known() && kh.Known() && kw.Known() && d.Size != per*op.OffsetGroup*kh.Size*kw.Size {
			return c.errf("%s has shape %s; want %d channels (%s)", c.slot(i), fmtShape(v), per*op.OffsetGroup*kh.Size*kw.Size, what)
		}
		for a := 2; a < 4; a++ {
			if d, o := dimAt(v, a), dimAt(out, a); d.Known() && o.Known() && d.Size != o.Size {
				return c.errf("%s has shape %s but the output is %s", c.slot(i), fmtShape(v), fmtShape(out))
			}
		}
		return nil
	}
	if err := check(2, off, 2, "a (dy, dx) pair per offset group and kernel tap"); err != nil {
		return ValueInfo{}, err
	}
	if c.present(4) {
		if err := firstErr(c.needRank(4, 4, "DeformConv mask (N, offset_group·kH·kW, oH, oW)"), c.sameDType(0, 4)); err != nil {
			return ValueInfo{}, err
		}
		if err := check(4, c.in[4], 1, "one per offset group and kernel tap"); err != nil {
			return ValueInfo{}, err
		}
	}
	return out, nil
}

// deformWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var deformWithout = Without{Accumulation: SumsNothing, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
