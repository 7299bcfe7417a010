package canon

// The linear-algebra family: Det, the determinant of square matrices.

func init() {
	Register(withReason(&OpDef{
		Kind: "Det", Summary: "determinant of each square matrix in the last two axes (LU with partial pivoting, computed in float64)",
		New:        func() Op { return &Det{} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.det()) },
		HalfUnsafe: "the product of the pivots leaves float16's range for matrices of moderate size",
		Example: func() Example {
			return Example{Op: &Det{}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3, 3}}}}
		},
	}, linalgWithout))
}

// Det is the determinant of X's matrices: X has shape (..., M, M) and the
// output (...). Each determinant is the product of the pivots of an LU
// factorization with partial pivoting, signed by the row swaps, computed
// in float64 and rounded to X's dtype.
type Det struct{}

func (*Det) Kind() string         { return "Det" }
func (*Det) Signature() Signature { return sig(1, inX) }

func (c *InferCtx) det() (ValueInfo, error) {
	x := c.in[0]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return ValueInfo{}, c.errf("input X %q is %s; Det takes floating-point matrices", c.n.Inputs[0], dt)
	}
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape)
	if r < 2 {
		return ValueInfo{}, c.errf("input X %q has shape %s; Det needs rank 2 or more (..., M, M)", c.n.Inputs[0], fmtShape(x))
	}
	m, n := x.Shape[r-2], x.Shape[r-1]
	if m.Known() && n.Known() && m.Size != n.Size {
		return ValueInfo{}, c.errf("input X %q has shape %s; Det needs square matrices in the last two axes", c.n.Inputs[0], fmtShape(x))
	}
	return shaped(x.DType, cloneDims(x.Shape[:r-2])), nil
}

// linalgWithout is why this family's kinds leave a slot empty.
var linalgWithout = Without{
	Accumulation: "an LU factorization: its rounding grows with the matrix's conditioning, which no count of products bounds",
	RemapAxes:    AxesFixed, Decompose: Primitive, Noop: NoNoopSetting,
}
