package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The loss family: NegativeLogLikelihoodLoss, and SoftmaxCrossEntropyLoss
// read as ONNX defines it, LogSoftmax on axis 1 (its optional second
// output, log_prob) then NegativeLogLikelihoodLoss. Both from opset 12
// (13 added bfloat16).

func init() {
	optable.Add(&ops, map[string]opEntry{
		"NegativeLogLikelihoodLoss": {convNLLLoss, 12, []string{"NegativeLogLikelihoodLoss"}},
		"SoftmaxCrossEntropyLoss":   {convSoftmaxCrossEntropy, 12, []string{"LogSoftmax", "NegativeLogLikelihoodLoss"}},
	})
}

// lossOp reads the attributes both losses share.
func lossOp(c *nodeCtx) *canon.NegativeLogLikelihoodLoss {
	r := c.str("reduction", "mean")
	red, ok := canon.ParseLossReduction(r)
	if !ok {
		c.fail("reduction %q is not none, sum or mean", r)
	}
	op := &canon.NegativeLogLikelihoodLoss{Reduction: red}
	if c.has("ignore_index") {
		op.IgnoreIndex, op.HasIgnoreIndex = c.int("ignore_index", 0), true
	}
	return op
}

func convNLLLoss(c *nodeCtx) error {
	op := lossOp(c)
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

func convSoftmaxCrossEntropy(c *nodeCtx) error {
	op := lossOp(c)
	outs := c.outputs(2, "SoftmaxCrossEntropyLoss has two outputs")
	logProb := ""
	if len(outs) > 1 {
		logProb = outs[1]
	}
	if logProb == "" {
		var err error
		if logProb, err = c.emitAux("log_prob", &canon.LogSoftmax{Axis: 1}, c.in(0)); err != nil {
			return err
		}
	} else if err := c.emitNamed(c.im.freshNode(c.name+"/log_prob"), &canon.LogSoftmax{Axis: 1}, []string{c.in(0)}, []string{logProb}); err != nil {
		return err
	}
	return c.emit(op, []string{logProb, c.in(1), c.in(2)}, outs[:1])
}
