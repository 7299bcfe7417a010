package canon

// BitCast, the reinterpretation of each element's bits as another dtype of
// the same width (ONNX opset 26).

func init() {
	Register(withReason(&OpDef{
		Kind: "BitCast", Summary: "each element's bits reinterpreted as another dtype of the same width (little endian)",
		New:   func() Op { return &BitCast{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.bitCast(c.n.Op.(*BitCast))) },
		Check: func(c *CheckCtx) error {
			if to := c.N.Op.(*BitCast).To; !bitCastable(to) {
				return c.Errorf("BitCast to %s is not supported (every numeric dtype but bool is)", to)
			}
			return nil
		},
		Example: func() Example {
			return Example{Op: &BitCast{To: Int32}, Inputs: []ExampleInput{exampleX}}
		},
	}, Without{Accumulation: SumsNothing, RemapAxes: NoRemapYet, Decompose: Primitive, Noop: NoNoopSetting}))
}

// BitCast reinterprets each element of X as dtype To, which has X's width
// in bits: the output has X's shape and, element by element, X's bytes. X
// may be bool (bytes 0 and 1); To may not.
type BitCast struct {
	To DType
}

func (*BitCast) Kind() string         { return "BitCast" }
func (*BitCast) Signature() Signature { return sig(1, inX) }

// bitCastable reports the dtypes BitCast writes: every numeric one (a
// bool byte other than 0 or 1 has no meaning). It reads bool too.
func bitCastable(dt DType) bool {
	return dt != Undefined && dt != Bool && dt.Size() > 0
}

func (c *InferCtx) bitCast(op *BitCast) (ValueInfo, error) {
	x := c.in[0]
	if !bitCastable(op.To) {
		return ValueInfo{}, c.errf("BitCast to %s is not supported (every numeric dtype but bool is)", op.To)
	}
	if x.DType != Undefined {
		if x.DType != Bool && !bitCastable(x.DType) {
			return ValueInfo{}, c.errf("input X %q is %s; BitCast reads numeric and bool dtypes", c.n.Inputs[0], x.DType)
		}
		if x.DType.Size() != op.To.Size() {
			return ValueInfo{}, c.errf("input X %q is %s (%d bits) and To is %s (%d bits); BitCast needs equal widths",
				c.n.Inputs[0], x.DType, 8*x.DType.Size(), op.To, 8*op.To.Size())
		}
	}
	return ValueInfo{DType: op.To, Shape: cloneDims(x.Shape), RankKnown: x.RankKnown}, nil
}
