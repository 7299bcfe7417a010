package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The math family. Every function has an ONNX op of the same name; what
// the opset decides is which dtypes its schema accepts.

// mathNative is the first opset of each function's ONNX op (the version
// 6 of the oldest ones only dropped consumed_inputs).
var mathNative = map[canon.MathFn]int{
	canon.MathAbs: 6, canon.MathNeg: 6, canon.MathExp: 6, canon.MathLog: 6, canon.MathSqrt: 6,
	canon.MathReciprocal: 6, canon.MathFloor: 6, canon.MathCeil: 6,
	canon.MathSign: 9, canon.MathErf: 9, canon.MathRound: 11,
	canon.MathSin: 7, canon.MathCos: 7, canon.MathTan: 7, canon.MathAsin: 7, canon.MathAcos: 7, canon.MathAtan: 7,
	canon.MathSinh: 9, canon.MathCosh: 9, canon.MathAsinh: 9, canon.MathAcosh: 9, canon.MathAtanh: 9,
}

// mathTypes: bfloat16 came to the oldest ops (and Sign, Erf) in opset 13,
// to Round and the trigonometric and hyperbolic functions only in 22.
func mathTypes(op canon.Op, dt canon.DType) int {
	if dt != canon.BFloat16 {
		return 0
	}
	switch op.(*canon.Math).Fn {
	case canon.MathRound, canon.MathSin, canon.MathCos, canon.MathTan, canon.MathAsin, canon.MathAcos, canon.MathAtan,
		canon.MathSinh, canon.MathCosh, canon.MathAsinh, canon.MathAcosh, canon.MathAtanh:
		return 22
	}
	return 13
}

func init() {
	same := func(b *builder, n *canon.Node) error {
		b.emit(n.Name, n.Op.Kind(), n.Inputs, n.Outputs)
		return nil
	}
	entries := map[string]exportEntry{
		"IsNaN": {onnx: "IsNaN", native: 9, write: same, typeOpset: func(_ canon.Op, dt canon.DType) int {
			if dt == canon.BFloat16 {
				return 13
			}
			return 0
		}},
		"IsInf": {onnx: "IsInf", native: 10, write: writeIsInf, typeOpset: func(_ canon.Op, dt canon.DType) int {
			if dt == canon.BFloat16 {
				return 13 // the Cast to float32 takes bfloat16 from 13
			}
			return 0
		}},
	}
	for _, fn := range canon.MathFns() {
		entries[fn.String()] = exportEntry{onnx: fn.String(), native: mathNative[fn], write: same, typeOpset: mathTypes}
	}
	optable.Add(&exports, entries)
}

// writeIsInf writes IsInf; IsInf takes float16 and bfloat16 only from
// opset 20, so below it such inputs are first cast to float32, which keeps
// every infinity and finite value as it is.
func writeIsInf(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.IsInf)
	attrs := []*onnxpb.AttributeProto{attrBool("detect_positive", op.DetectPositive), attrBool("detect_negative", op.DetectNegative)}
	x := n.Inputs[0]
	if dt := b.dtype(x); dt == canon.Float16 || dt == canon.BFloat16 {
		cast := b.unique(prefix(n) + "_f32")
		b.emit(b.unique(prefix(n)+"_cast"), "Cast", []string{x}, []string{cast}, attrInt("to", int64(onnxpb.TensorProto_FLOAT)))
		x = cast
		b.expanded = true
	}
	b.emit(n.Name, "IsInf", []string{x}, n.Outputs, attrs...)
	return nil
}
