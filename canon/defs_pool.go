package canon

import "math"

// The pooling family beyond MaxPool and AveragePool: LpPool, GlobalLpPool
// and MaxUnpool. MaxPool's optional Indices output is defined with
// MaxPool.

func init() {
	for _, d := range poolOps() {
		Register(withReason(d, poolWithout))
	}
}

// LpPool is the P-norm of each window, (Σ|x|^P)^(1/P); padded positions
// count as zeros. Pads are explicit; CeilMode rounds the output size up.
type LpPool struct {
	Kernel    []int64
	Strides   []int64
	Dilations []int64
	PadsBegin []int64
	PadsEnd   []int64
	CeilMode  bool
	P         int64
}

func (*LpPool) Kind() string         { return "LpPool" }
func (*LpPool) Signature() Signature { return sig(1, inX) }

// GlobalLpPool is the P-norm over all spatial axes, kept as size 1.
type GlobalLpPool struct {
	P int64
}

func (*GlobalLpPool) Kind() string         { return "GlobalLpPool" }
func (*GlobalLpPool) Signature() Signature { return sig(1, inX) }

// MaxUnpool scatters X into a zero tensor at the flat positions I (as
// MaxPool's Indices give them: offsets into the whole output, batch and
// channel included). The output shape is OutputShape when set, otherwise
// each spatial axis is (in-1)·stride + kernel - PadsBegin - PadsEnd.
type MaxUnpool struct {
	Kernel      []int64
	Strides     []int64
	PadsBegin   []int64
	PadsEnd     []int64
	OutputShape []int64
}

func (*MaxUnpool) Kind() string { return "MaxUnpool" }
func (*MaxUnpool) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "I"})
}

func ones(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

func poolOps() []*OpDef {
	return []*OpDef{
		{
			Kind: "LpPool", Summary: "P-norm over windows, explicit pads, dilations, ceil mode",
			HalfUnsafe: "sums of powers overflow float16",
			New:        func() Op { return &LpPool{P: 2} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				op := c.n.Op.(*LpPool)
				if err := c.needFloatX("LpPool"); err != nil {
					return nil, err
				}
				return one(c.pool(op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode))
			},
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*LpPool)
				if op.P < 1 {
					return c.Errorf("P is %d, must be >= 1", op.P)
				}
				return c.pool(op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
			},
			Example: func() Example {
				return Example{Op: &LpPool{Kernel: []int64{2, 3}, Strides: []int64{2, 1}, Dilations: []int64{1, 1},
					PadsBegin: []int64{1, 0}, PadsEnd: []int64{1, 0}, P: 2}, Inputs: []ExampleInput{exampleX}}
			},
		},
		{
			Kind: "GlobalLpPool", Summary: "P-norm over all spatial axes",
			HalfUnsafe: "sums of powers overflow float16",
			New:        func() Op { return &GlobalLpPool{P: 2} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				if err := c.needFloatX("GlobalLpPool"); err != nil {
					return nil, err
				}
				return one(c.globalPool())
			},
			Check: func(c *CheckCtx) error {
				if p := c.N.Op.(*GlobalLpPool).P; p < 1 {
					return c.Errorf("P is %d, must be >= 1", p)
				}
				return nil
			},
			Example: unaryExample(&GlobalLpPool{P: 2}),
		},
		{
			Kind: "MaxUnpool", Summary: "scatter values into zeros at MaxPool's flat indices",
			New:   func() Op { return &MaxUnpool{} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.maxUnpool(c.n.Op.(*MaxUnpool))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*MaxUnpool)
				return c.pool(op.Kernel, op.Strides, ones(len(op.Kernel)), op.PadsBegin, op.PadsEnd)
			},
			Example: func() Example {
				idx := make([]int64, 8)
				for i := range idx { // in plane c of the 1x2x3x3 output, as torch's per-plane indices can say too
					idx[i] = int64(i/4*9) + []int64{0, 4, 5, 8}[i%4]
				}
				return Example{Op: &MaxUnpool{Kernel: []int64{2, 2}, Strides: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}},
					Inputs: []ExampleInput{{DType: Float32, Shape: []int64{1, 2, 2, 2}},
						{DType: Int64, Shape: []int64{1, 2, 2, 2}, Const: NewInt64Tensor("", []int64{1, 2, 2, 2}, idx)}}}
			},
		},
	}
}

func (c *InferCtx) maxUnpool(op *MaxUnpool) (ValueInfo, error) {
	x, idx := c.in[0], c.in[1]
	if idx.DType != Undefined && idx.DType != Int64 {
		return ValueInfo{}, c.errf("indices I %q are %s, want i64", c.n.Inputs[1], idx.DType)
	}
	ns := c.spatialRank(len(op.Kernel), -1)
	if err := c.checkSpatialAttrs(ns, namedInts{"Kernel", op.Kernel}, namedInts{"Strides", op.Strides},
		namedInts{"PadsBegin", op.PadsBegin}, namedInts{"PadsEnd", op.PadsEnd}); err != nil {
		return ValueInfo{}, err
	}
	if x.RankKnown && idx.RankKnown && len(x.Shape) != len(idx.Shape) {
		return ValueInfo{}, c.errf("indices I %q have shape %s, input X %s: they must have the same shape", c.n.Inputs[1], fmtShape(idx), fmtShape(x))
	}
	if op.OutputShape != nil {
		if x.RankKnown && len(op.OutputShape) != len(x.Shape) {
			return ValueInfo{}, c.errf("OutputShape %v has %d entries, input X has rank %d", op.OutputShape, len(op.OutputShape), len(x.Shape))
		}
		out := make([]Dim, len(op.OutputShape))
		for i, d := range op.OutputShape {
			if d < 0 {
				return ValueInfo{}, c.errf("OutputShape %v has a negative size", op.OutputShape)
			}
			out[i] = knownDim(d)
		}
		return shaped(x.DType, out), nil
	}
	out := make([]Dim, ns+2)
	out[0], out[1] = dimAt(x, 0), dimAt(x, 1)
	for i := 0; i < ns; i++ {
		d := dimAt(x, 2+i)
		if !d.Known() {
			out[2+i] = unknownDim
			continue
		}
		if d.Size > 1 && op.Strides[i] > (math.MaxInt32-op.Kernel[i])/(d.Size-1) {
			return ValueInfo{}, c.errf("the output's spatial axis %d would exceed %d elements", i, math.MaxInt32)
		}
		s := (d.Size-1)*op.Strides[i] + op.Kernel[i] - op.PadsBegin[i] - op.PadsEnd[i]
		if s < 0 {
			return ValueInfo{}, c.errf("the output's spatial axis %d would have size %d", i, s)
		}
		out[2+i] = knownDim(s)
	}
	return shaped(x.DType, out), nil
}

// poolWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var poolWithout = Without{Accumulation: SumsNoProducts, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
