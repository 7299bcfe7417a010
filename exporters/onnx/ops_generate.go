package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The generate family: NonZero, Unique, Range, ConstantOfShape, EyeLike,
// DepthToSpace, SpaceToDepth, ReverseSequence. Outputs whose length is
// known only at run time are written with that axis symbolic (the
// value_info comes from inference's named dims).

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"NonZero": {onnx: "NonZero", native: 9, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "NonZero", n.Inputs, n.Outputs)
			return nil
		}},
		"Unique":          {onnx: "Unique", native: 11, write: writeUnique},
		"Range":           {onnx: "Range", native: 11, write: writeRange},
		"ConstantOfShape": {onnx: "ConstantOfShape", native: 9, write: writeConstantOfShape},
		"EyeLike":         {onnx: "EyeLike", native: 9, write: writeEyeLike, typeOpset: genBF16Since(22)},
		"DepthToSpace": {onnx: "DepthToSpace", native: 11, typeOpset: genBF16Since(13), write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.DepthToSpace)
			mode := "DCR"
			if op.CRD {
				mode = "CRD"
			}
			b.emit(n.Name, "DepthToSpace", n.Inputs, n.Outputs, attrInt("blocksize", op.Blocksize), attrString("mode", mode))
			return nil
		}},
		"SpaceToDepth": {onnx: "SpaceToDepth", native: 1, typeOpset: genBF16Since(13), write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "SpaceToDepth", n.Inputs, n.Outputs, attrInt("blocksize", n.Op.(*canon.SpaceToDepth).Blocksize))
			return nil
		}},
		"ReverseSequence": {onnx: "ReverseSequence", native: 10, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.ReverseSequence)
			b.emit(n.Name, "ReverseSequence", n.Inputs, n.Outputs, attrInt("batch_axis", op.BatchAxis), attrInt("time_axis", op.TimeAxis))
			return nil
		}},
	})
}

// genBF16Since is the typeOpset of ops whose schema admits bfloat16 from
// opset min.
func genBF16Since(min int) func(canon.Op, canon.DType) int {
	return func(_ canon.Op, dt canon.DType) int {
		if dt == canon.BFloat16 {
			return min
		}
		return 0
	}
}

func writeUnique(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Unique)
	attrs := []*onnxpb.AttributeProto{attrBool("sorted", op.Sorted)}
	if !op.Flatten {
		attrs = append(attrs, attrInt("axis", op.Axis))
	}
	b.emit(n.Name, "Unique", n.Inputs, n.Outputs, attrs...)
	return nil
}

// writeRange: Range-11 is defined for f32, f64, i16, i32 and i64 only.
func writeRange(b *builder, n *canon.Node) error {
	switch dt := b.dtype(n.Inputs[0]); dt {
	case canon.Float32, canon.Float64, canon.Int16, canon.Int32, canon.Int64:
	default:
		return b.opError(n, "ONNX Range takes f32, f64, i16, i32 or i64 bounds, these are %s; cast them first", dt)
	}
	b.emit(n.Name, "Range", n.Inputs, n.Outputs)
	return nil
}

func writeConstantOfShape(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.ConstantOfShape)
	if op.Value.DType == canon.BFloat16 {
		return b.needOpset(n, "ConstantOfShape with a bf16 value", 20)
	}
	shape := in(n, 0)
	if shape == "" {
		shape = b.param(n, "shape", canon.NewInt64Tensor("", []int64{int64(len(op.Shape))}, op.Shape))
	}
	v := *op.Value
	v.Name = ""
	v.Shape = []int64{1}
	b.emit(n.Name, "ConstantOfShape", []string{shape}, n.Outputs, attrTensor("value", TensorToProto(&v)))
	return nil
}

func writeEyeLike(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.EyeLike)
	if op.DType == canon.BFloat16 && b.opset < 22 {
		return b.needOpset(n, "EyeLike with bf16 output", 22)
	}
	dt, ok := DataType(op.DType)
	if !ok {
		return b.opError(n, "output dtype %s has no ONNX element type", op.DType)
	}
	b.emit(n.Name, "EyeLike", n.Inputs, n.Outputs, attrInt("dtype", int64(dt)), attrInt("k", op.K))
	return nil
}
