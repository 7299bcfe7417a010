package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the loss family: NegativeLogLikelihoodLoss, computed in
// float64 for every float dtype.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"NegativeLogLikelihoodLoss": computesF64(withOp(runNLLLoss)),
	})
}

func runNLLLoss(x *exec, op *canon.NegativeLogLikelihoodLoss) error {
	in, target, weight := x.in(0), x.in(1), x.in(2)
	if err := needFloating(in, "input"); err != nil {
		return err
	}
	if target.isFloating() {
		return fmt.Errorf("target is %s, want int32 or int64 class indices", target.dt)
	}
	if len(in.shape) < 2 || len(target.shape) != len(in.shape)-1 || target.shape[0] != in.shape[0] {
		return fmt.Errorf("input of shape %v and target of shape %v: the target must be the input's shape without axis 1", in.shape, target.shape)
	}
	for i := 1; i < len(target.shape); i++ {
		if target.shape[i] != in.shape[i+1] {
			return fmt.Errorf("input of shape %v and target of shape %v: the target must be the input's shape without axis 1", in.shape, target.shape)
		}
	}
	n, c := in.shape[0], in.shape[1]
	inner := numel(in.shape[2:])
	if weight != nil {
		if err := needFloating(weight, "weight"); err != nil {
			return err
		}
		if len(weight.shape) != 1 || weight.shape[0] != c {
			return fmt.Errorf("weight has shape %v, want (%d): one per class", weight.shape, c)
		}
	}
	losses := make([]float64, n*inner)
	var lossSum, weightSum float64
	for b := range n {
		for d := range inner {
			k := b*inner + d
			cls := target.i[k]
			if op.HasIgnoreIndex && cls == op.IgnoreIndex {
				continue
			}
			if cls < 0 || cls >= int64(c) {
				return fmt.Errorf("target %d at element %d is not a class index in [0, %d) (nor the ignore_index)", cls, k, c)
			}
			w := 1.0
			if weight != nil {
				w = weight.fl(int(cls))
			}
			losses[k] = -in.fl((b*c+int(cls))*inner+d) * w
			lossSum += losses[k]
			weightSum += w
		}
	}
	var out *tensor
	switch op.Reduction {
	case canon.LossNone:
		out = x.newFloatLike(in, append([]int{}, target.shape...))
		for i, v := range losses {
			out.setFl(i, v)
		}
	case canon.LossSum:
		out = x.newFloatLike(in, []int{})
		out.setFl(0, lossSum)
	default:
		out = x.newFloatLike(in, []int{})
		out.setFl(0, lossSum/weightSum)
	}
	x.set(0, out)
	return nil
}
