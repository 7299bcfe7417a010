package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The linear-algebra family: Det is ONNX's Det from opset 11.

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"Det": {onnx: "Det", native: 11, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "Det", n.Inputs, n.Outputs)
			return nil
		}, typeOpset: func(_ canon.Op, dt canon.DType) int {
			if dt == canon.BFloat16 {
				return 22 // Det-22 added bfloat16
			}
			return 0
		}},
	})
}
