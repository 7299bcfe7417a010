package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// CumProd is ONNX's CumProd from opset 26, with the axis as an input.

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"CumProd": {onnx: "CumProd", native: 26, write: writeCumProd},
	})
}

func writeCumProd(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.CumProd)
	switch dt := b.dtype(n.Inputs[0]); dt {
	case canon.Int8, canon.Uint8, canon.Int16, canon.Uint16:
		return b.opError(n, "ONNX CumProd takes no %s data; cast the input to int32 first", dt)
	}
	axis := in(n, 1)
	if axis == "" {
		axis = b.param(n, "axis", canon.NewInt64Tensor("", []int64{}, []int64{op.Axis}))
	}
	b.emit(n.Name, "CumProd", []string{n.Inputs[0], axis}, n.Outputs,
		attrBool("exclusive", op.Exclusive), attrBool("reverse", op.Reverse))
	return nil
}
