package canon

// CumProd, the running product along one axis (ONNX opset 26).

func init() {
	Register(withReason(&OpDef{
		Kind: "CumProd", Summary: "running product along one axis, inclusive or exclusive, forward or reversed",
		HalfUnsafe: "running products leave float16's range and precision",
		New:        func() Op { return &CumProd{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			op := c.n.Op.(*CumProd)
			if c.in[0].DType == Bool {
				return nil, c.errf("input X %q is bool; CumProd needs numbers", c.n.Inputs[0])
			}
			return one(c.cumSum(&CumSum{Axis: op.Axis, Exclusive: op.Exclusive, Reverse: op.Reverse}))
		},
		Example: func() Example {
			return Example{Op: &CumProd{Axis: 2, Exclusive: true, Reverse: true}, Inputs: []ExampleInput{exampleX}}
		},
	}, reduceWithout))
}

// CumProd is the running product of X along Axis: Exclusive leaves each
// entry out of its own product (the first is 1), Reverse multiplies from
// the end. Integers wrap at their dtype's width; floats multiply in
// float64. An axis computed at run time is the optional input Axis (an
// i32 or i64 scalar) instead; the attribute is then 0.
type CumProd struct {
	Axis      int64
	Exclusive bool
	Reverse   bool
}

func (*CumProd) Kind() string         { return "CumProd" }
func (*CumProd) Signature() Signature { return sig(1, inX, param("Axis")) }

func (s *CumProd) AttrGiven(int) (string, bool) { return "Axis", s.Axis != 0 }
