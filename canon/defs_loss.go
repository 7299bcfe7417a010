package canon

import "fmt"

// The loss family: NegativeLogLikelihoodLoss. ONNX's
// SoftmaxCrossEntropyLoss is read as LogSoftmax on axis 1 followed by it,
// which is how ONNX defines it.

func init() {
	Register(withReason(&OpDef{
		Kind:       "NegativeLogLikelihoodLoss",
		Summary:    "negative log-likelihood of integer class targets (class weights, ignore_index, reduction none/sum/mean)",
		New:        func() Op { return &NegativeLogLikelihoodLoss{Reduction: LossMean} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.nllLoss(c.n.Op.(*NegativeLogLikelihoodLoss))) },
		HalfUnsafe: "a sum over the batch loses float16's 11-bit precision",
		Check: func(c *CheckCtx) error {
			if r := c.N.Op.(*NegativeLogLikelihoodLoss).Reduction; r > LossMean {
				return c.Errorf("unknown reduction %d", r)
			}
			return nil
		},
		Example: func() Example {
			w := exampleF32(4)
			w.Const = positive(w.Const)
			return Example{
				Op: &NegativeLogLikelihoodLoss{Reduction: LossMean, IgnoreIndex: 1, HasIgnoreIndex: true},
				// Constant class indices: every backend's test inputs are then
				// valid targets (one of them the ignored class).
				Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 4, 3}},
					{DType: Int64, Shape: []int64{2, 3}, Const: NewInt64Tensor("", []int64{2, 3}, []int64{0, 1, 3, 2, 1, 0})}, w},
			}
		},
		AccumulationLength: func(n *Node, shapes InputShapes) int64 {
			if n.Op.(*NegativeLogLikelihoodLoss).Reduction == LossNone {
				return 0
			}
			if s := shapes(1); s != nil {
				return NumElements(s)
			}
			return 0
		},
	}, lossWithout))
}

// LossReduction is how a loss combines the per-element losses.
type LossReduction uint8

const (
	// LossNone keeps one loss per target element.
	LossNone LossReduction = iota
	// LossSum adds them.
	LossSum
	// LossMean divides their sum by the sum of the weights of the targets
	// that are not ignored (their count without class weights).
	LossMean
)

var lossReductionNames = [...]string{LossNone: "none", LossSum: "sum", LossMean: "mean"}

// String is ONNX's spelling of the reduction ("none", "sum", "mean").
func (r LossReduction) String() string {
	if int(r) < len(lossReductionNames) {
		return lossReductionNames[r]
	}
	return fmt.Sprintf("reduction(%d)", r)
}

// ParseLossReduction reads ONNX's spelling of a reduction.
func ParseLossReduction(s string) (LossReduction, bool) {
	for i, n := range lossReductionNames {
		if n == s {
			return LossReduction(i), true
		}
	}
	return 0, false
}

// NegativeLogLikelihoodLoss is -Input[n, Target[n, d...], d...] ×
// Weight[Target[n, d...]] for each target element: Input has shape
// (N, C, d1...), Target (N, d1...) of int32 or int64 class indices in
// [0, C), and the optional Weight (C) (1 when absent). A target equal to
// IgnoreIndex (when HasIgnoreIndex) contributes 0 and no weight. The output
// is the per-element losses (LossNone) or their reduction to a scalar.
// Computed in float64, rounded to Input's dtype.
type NegativeLogLikelihoodLoss struct {
	Reduction      LossReduction
	IgnoreIndex    int64
	HasIgnoreIndex bool
}

func (*NegativeLogLikelihoodLoss) Kind() string { return "NegativeLogLikelihoodLoss" }
func (*NegativeLogLikelihoodLoss) Signature() Signature {
	return sig(1, InputSpec{Name: "Input"}, InputSpec{Name: "Target"}, InputSpec{Name: "Weight", Optional: true})
}

func (c *InferCtx) nllLoss(op *NegativeLogLikelihoodLoss) (ValueInfo, error) {
	x, t := c.in[0], c.in[1]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return ValueInfo{}, c.errf("input %q is %s; NegativeLogLikelihoodLoss takes floating-point log-probabilities", c.n.Inputs[0], dt)
	}
	if dt := t.DType; dt != Undefined && dt != Int32 && dt != Int64 {
		return ValueInfo{}, c.errf("Target %q is %s, want int32 or int64 class indices", c.n.Inputs[1], dt)
	}
	if c.present(2) {
		if err := c.sameDType(0, 2); err != nil {
			return ValueInfo{}, err
		}
		if err := c.needRank(2, 1, "NegativeLogLikelihoodLoss's Weight (one per class)"); err != nil {
			return ValueInfo{}, err
		}
	}
	if x.RankKnown && len(x.Shape) < 2 {
		return ValueInfo{}, c.errf("input %q has shape %s; NegativeLogLikelihoodLoss needs (N, C, d1...)", c.n.Inputs[0], fmtShape(x))
	}
	if x.RankKnown && t.RankKnown {
		if len(t.Shape) != len(x.Shape)-1 {
			return ValueInfo{}, c.errf("Target %q has shape %s and input %q %s; Target must be the input's shape without axis 1",
				c.n.Inputs[1], fmtShape(t), c.n.Inputs[0], fmtShape(x))
		}
		for i, d := range t.Shape {
			xd := x.Shape[i]
			if i > 0 {
				xd = x.Shape[i+1]
			}
			if d.Known() && xd.Known() && d.Size != xd.Size {
				return ValueInfo{}, c.errf("Target %q has shape %s and input %q %s; Target must be the input's shape without axis 1",
					c.n.Inputs[1], fmtShape(t), c.n.Inputs[0], fmtShape(x))
			}
		}
	}
	if op.Reduction != LossNone {
		return shaped(x.DType, nil), nil
	}
	if t.RankKnown {
		return shaped(x.DType, cloneDims(t.Shape)), nil
	}
	if x.RankKnown {
		out := append(cloneDims(x.Shape[:1]), cloneDims(x.Shape[2:])...)
		return shaped(x.DType, out), nil
	}
	return ValueInfo{DType: x.DType}, nil
}

// lossWithout is why this family's kinds leave a slot empty.
var lossWithout = Without{
	RemapAxes: AxesFixed,
	Decompose: "no expansion written yet (it would gather the target's entries and mask the ignored ones)",
	Noop:      NoNoopSetting,
}
