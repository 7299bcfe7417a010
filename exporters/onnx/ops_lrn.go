package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"LRN": {onnx: "LRN", native: 1, write: writeLRN, typeOpset: func(_ canon.Op, dt canon.DType) int {
			if dt == canon.BFloat16 {
				return 13
			}
			return 0
		}},
	})
}

func writeLRN(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.LRN)
	b.emit(n.Name, "LRN", n.Inputs, n.Outputs, attrInt("size", op.Size), attrFloat("alpha", op.Alpha),
		attrFloat("beta", op.Beta), attrFloat("bias", op.Bias))
	return nil
}
