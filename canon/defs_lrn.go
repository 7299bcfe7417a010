package canon

// The LRN family: local response normalization across channels (ONNX LRN,
// MXNet LRN, torch.nn.LocalResponseNorm, Caffe's ACROSS_CHANNELS LRN).

func init() {
	Register(withReason(&OpDef{
		Kind: "LRN", Summary: "local response normalization across channels: x / (bias + alpha/size·Σx²)^beta",
		HalfUnsafe: "sums of squares overflow float16",
		New:        func() Op { return &LRN{Alpha: 0.0001, Beta: 0.75, Bias: 1} },
		Traits:     Traits{},
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			x := c.in[0]
			if dt := x.DType; dt != Undefined && !dt.IsFloat() {
				return nil, c.errf("input %q is %s: LRN takes floating-point tensors only", c.n.Inputs[0], dt)
			}
			if x.RankKnown && len(x.Shape) < 3 {
				return nil, c.errf("input %q has rank %d; LRN needs (N, C, spatial...)", c.n.Inputs[0], len(x.Shape))
			}
			return c.SameAsInput(0)
		},
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*LRN)
			if op.Size < 1 {
				return c.Errorf("Size %d must be >= 1", op.Size)
			}
			return nil
		},
		Example: func() Example {
			return Example{Op: &LRN{Size: 3, Alpha: 0.5, Beta: 0.75, Bias: 2}, Inputs: []ExampleInput{exampleX}}
		},
	}, lrnWithout))
}

// LRN normalizes each element by the squares of its neighbours along axis 1:
// Y[n,c,...] = X[n,c,...] / (Bias + Alpha/Size · Σ X[n,c',...]²)^Beta, with c'
// from c - floor((Size-1)/2) to c + ceil((Size-1)/2), clipped to the
// channels (ONNX's definition; for odd sizes the window is centred).
type LRN struct {
	Size  int64
	Alpha float32
	Beta  float32
	Bias  float32
}

func (*LRN) Kind() string         { return "LRN" }
func (*LRN) Signature() Signature { return sig(1, inX) }

// lrnWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var lrnWithout = Without{Accumulation: SumsNoProducts, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
