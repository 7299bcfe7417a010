package canon

// TensorScatter, the functional key/value cache update of ONNX opset 24.

func init() {
	Register(withReason(&OpDef{
		Kind: "TensorScatter", Summary: "writes each batch row's update into a cache along the sequence axis at a per-row index (linear or circular)",
		New:   func() Op { return &TensorScatter{Axis: -2} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.tensorScatter(c.n.Op.(*TensorScatter))) },
		Example: func() Example {
			return Example{Op: &TensorScatter{Axis: 2, Circular: true}, Inputs: []ExampleInput{
				{DType: Float32, Shape: []int64{2, 3, 4, 5}}, {DType: Float32, Shape: []int64{2, 3, 2, 5}},
				{DType: Int64, Shape: []int64{2}}}}
		},
	}, Without{Accumulation: SumsNothing, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}))
}

// TensorScatter copies PastCache (batch, ..., max_sequence, ...) and writes
// Update (batch, ..., sequence, ...), which differs from it only along Axis,
// into it: row s of batch b's update goes to index WriteIndices[b] + s along
// Axis (modulo max_sequence when Circular; out of range is an error
// otherwise). WriteIndices (batch) of int64 is optional (zeros). Axis is
// never 0, the batch axis.
type TensorScatter struct {
	Axis     int64
	Circular bool
}

func (*TensorScatter) Kind() string { return "TensorScatter" }
func (*TensorScatter) Signature() Signature {
	return sig(1, InputSpec{Name: "PastCache"}, InputSpec{Name: "Update"}, InputSpec{Name: "WriteIndices", Optional: true})
}

func (c *InferCtx) tensorScatter(op *TensorScatter) (ValueInfo, error) {
	past, upd := c.in[0], c.in[1]
	if err := c.sameDType(0, 1); err != nil {
		return ValueInfo{}, err
	}
	if c.present(2) {
		if dt := c.in[2].DType; dt != Undefined && dt != Int64 {
			return ValueInfo{}, c.errf("WriteIndices %q is %s, want int64", c.n.Inputs[2], dt)
		}
		if err := c.needRank(2, 1, "TensorScatter's WriteIndices (one per batch row)"); err != nil {
			return ValueInfo{}, err
		}
	}
	if past.RankKnown {
		r := len(past.Shape)
		a, ok := normAxis(op.Axis, r)
		if !ok || a == 0 {
			return ValueInfo{}, c.errf("axis %d is not a sequence axis of PastCache %s (it must not be the batch axis 0)", op.Axis, fmtShape(past))
		}
		if upd.RankKnown {
			if len(upd.Shape) != r {
				return ValueInfo{}, c.errf("Update %s and PastCache %s have different ranks", fmtShape(upd), fmtShape(past))
			}
			for i := range r {
				p, u := past.Shape[i], upd.Shape[i]
				if !p.Known() || !u.Known() {
					continue
				}
				if i == a && u.Size > p.Size || i != a && u.Size != p.Size {
					return ValueInfo{}, c.errf("Update %s does not fit PastCache %s: they must match except along axis %d, where Update may be shorter",
						fmtShape(upd), fmtShape(past), a)
				}
			}
		}
	}
	return ValueInfo{DType: past.DType, Shape: cloneDims(past.Shape), RankKnown: past.RankKnown}, nil
}
