package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// TensorScatter is ONNX's TensorScatter from opset 24.

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"TensorScatter": {onnx: "TensorScatter", native: 24, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.TensorScatter)
			mode := "linear"
			if op.Circular {
				mode = "circular"
			}
			b.emit(n.Name, "TensorScatter", n.Inputs, n.Outputs, attrInt("axis", op.Axis), attrString("mode", mode))
			return nil
		}},
	})
}
