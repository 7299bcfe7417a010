package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The loss family: NegativeLogLikelihoodLoss from opset 12 (13 added
// bfloat16).

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"NegativeLogLikelihoodLoss": {onnx: "NegativeLogLikelihoodLoss", native: 12, write: writeNLLLoss,
			typeOpset: func(_ canon.Op, dt canon.DType) int {
				if dt == canon.BFloat16 {
					return 13
				}
				return 0
			}},
	})
}

func writeNLLLoss(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.NegativeLogLikelihoodLoss)
	attrs := []*onnxpb.AttributeProto{attrString("reduction", op.Reduction.String())}
	if op.HasIgnoreIndex {
		attrs = append(attrs, attrInt("ignore_index", op.IgnoreIndex))
	}
	b.emit(n.Name, "NegativeLogLikelihoodLoss", n.Inputs, n.Outputs, attrs...)
	return nil
}
