package torchexport

import (
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The loss family: NegativeLogLikelihoodLoss is F.nll_loss, which takes
// (N, C, d1...) scores, int64 targets and the same reductions; without an
// ignore_index, torch's default -100 ignores nothing a valid target can
// hold (class indices are in [0, C)).

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"NegativeLogLikelihoodLoss": {write: writeNLLLoss, floatOnly: "negative log-likelihood (float32 and float64)",
			accepts: func(dt canon.DType) bool { return dt == canon.Float32 || dt == canon.Float64 },
			detail:  "F.nll_loss with the target as int64"},
	})
}

func writeNLLLoss(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.NegativeLogLikelihoodLoss)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	t, err := gen.in(1)
	if err != nil {
		return err
	}
	weight := "None"
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		if weight, err = gen.in(2); err != nil {
			return err
		}
	}
	ignore := int64(-100)
	if op.HasIgnoreIndex {
		ignore = op.IgnoreIndex
	}
	gen.assign("F.nll_loss(" + x + ", " + t + ".long(), weight=" + weight + ", ignore_index=" + strconv.FormatInt(ignore, 10) +
		", reduction='" + op.Reduction.String() + "')")
	return nil
}
