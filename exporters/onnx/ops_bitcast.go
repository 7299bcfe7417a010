package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// BitCast is ONNX's BitCast from opset 26.

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"BitCast": {onnx: "BitCast", native: 26, write: func(b *builder, n *canon.Node) error {
			to := n.Op.(*canon.BitCast).To
			code, ok := DataType(to)
			if !ok {
				return b.opError(n, "ONNX has no element type for %s", to)
			}
			b.emit(n.Name, "BitCast", n.Inputs, n.Outputs, attrInt("to", int64(code)))
			return nil
		}},
	})
}
