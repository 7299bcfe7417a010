package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"QuantizeLinear":        {onnx: "QuantizeLinear", native: 10, write: writeQuantizeLinear},
		"DequantizeLinear":      {onnx: "DequantizeLinear", native: 10, write: writeDequantizeLinear},
		"DynamicQuantizeLinear": {onnx: "DynamicQuantizeLinear", native: 11, write: writeDynamicQuantizeLinear},
		"QLinearConv":           {onnx: "QLinearConv", native: 10, write: writeQLinearConv},
		"ConvInteger":           {onnx: "ConvInteger", native: 10, write: writeConvInteger},
		"MatMulInteger":         {onnx: "MatMulInteger", native: 10, write: writeMatMulInteger},
		"QLinearMatMul":         {onnx: "QLinearMatMul", native: 10, write: writeQLinearMatMul},
	})
}

// perTensor reports whether the scale value is a scalar or holds one
// element.
func (b *builder) perTensor(scale string) bool {
	vi, ok := b.types[scale]
	if !ok || !vi.RankKnown {
		return false
	}
	return len(vi.Shape) == 0 || (len(vi.Shape) == 1 && vi.Shape[0].Known() && vi.Shape[0].Size == 1)
}

// quantOpset is the lowest opset whose QuantizeLinear/DequantizeLinear
// expresses this node: 13 for a per-axis scale, 19 for a float16 or
// bfloat16 scale or data, 21 for blocks, 16-bit integers or output_dtype.
func (b *builder) quantOpset(n *canon.Node, integer canon.DType, block int64) (int, string) {
	switch {
	case block > 0:
		return 21, "blocked quantization (block_size)"
	case integer == canon.Int16 || integer == canon.Uint16:
		return 21, "quantization to " + integer.String()
	case b.dtype(n.Inputs[1]) != canon.Float32:
		return 19, "a " + b.dtype(n.Inputs[1]).String() + " quantization scale"
	case !b.perTensor(n.Inputs[1]):
		return 13, "per-axis quantization"
	}
	return 10, ""
}

func (b *builder) quantAttrs(n *canon.Node, axis, block int64) []*onnxpb.AttributeProto {
	var attrs []*onnxpb.AttributeProto
	if b.opset >= 13 && !b.perTensor(n.Inputs[1]) {
		attrs = append(attrs, attrInt("axis", axis))
	}
	if block > 0 {
		attrs = append(attrs, attrInt("block_size", block))
	}
	return attrs
}

func writeQuantizeLinear(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.QuantizeLinear)
	out := b.dtype(n.Outputs[0])
	min, what := b.quantOpset(n, out, op.BlockSize)
	if dt := b.dtype(n.Inputs[0]); dt != canon.Float32 && min < 19 {
		min, what = 19, "quantizing "+dt.String()+" data"
	}
	if min > b.opset {
		return b.needOpset(n, what, min)
	}
	ins := []string{n.Inputs[0], n.Inputs[1], in(n, 2)}
	attrs := b.quantAttrs(n, op.Axis, op.BlockSize)
	switch {
	case ins[2] != "" || out == canon.Uint8:
	case b.opset >= 21:
		code, _ := DataType(out)
		attrs = append(attrs, attrInt("output_dtype", int64(code)))
	case b.perTensor(n.Inputs[1]):
		// Without a zero point ONNX before opset 21 quantizes to uint8:
		// a zero zero point of the output type says the type exactly.
		ins[2] = b.scalarParam(n, "zero_point", out, 0)
	default:
		return b.needOpset(n, "a per-axis QuantizeLinear to "+out.String()+" without a zero point (output_dtype)", 21)
	}
	b.emit(n.Name, "QuantizeLinear", ins, n.Outputs, attrs...)
	return nil
}

func writeDequantizeLinear(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.DequantizeLinear)
	min, what := b.quantOpset(n, b.dtype(n.Inputs[0]), op.BlockSize)
	if op.OutputDType != canon.Undefined && op.OutputDType != b.dtype(n.Inputs[1]) {
		return b.opError(n, "DequantizeLinear to %s from a %s scale needs output_dtype, which this exporter's opsets lack", op.OutputDType, b.dtype(n.Inputs[1]))
	}
	if min > b.opset {
		return b.needOpset(n, what, min)
	}
	b.emit(n.Name, "DequantizeLinear", []string{n.Inputs[0], n.Inputs[1], in(n, 2)}, n.Outputs, b.quantAttrs(n, op.Axis, op.BlockSize)...)
	return nil
}

func writeDynamicQuantizeLinear(b *builder, n *canon.Node) error {
	b.emit(n.Name, "DynamicQuantizeLinear", n.Inputs, n.Outputs)
	return nil
}

func intConvAttrs(b *builder, op *canon.Conv, w string) []*onnxpb.AttributeProto {
	attrs := []*onnxpb.AttributeProto{}
	if k := b.kernelShape(w); k != nil {
		attrs = append(attrs, attrInts("kernel_shape", k))
	}
	return append(attrs,
		attrInts("strides", op.Strides),
		attrInts("dilations", op.Dilations),
		attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
		attrInt("group", op.Group))
}

func writeQLinearConv(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.QLinearConv)
	b.emit(n.Name, "QLinearConv", n.Inputs, n.Outputs, intConvAttrs(b, op.Conv(), in(n, 3))...)
	return nil
}

func writeConvInteger(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.ConvInteger)
	b.emit(n.Name, "ConvInteger", n.Inputs, n.Outputs, intConvAttrs(b, op.Conv(), in(n, 1))...)
	return nil
}

func writeMatMulInteger(b *builder, n *canon.Node) error {
	b.emit(n.Name, "MatMulInteger", n.Inputs, n.Outputs)
	return nil
}

// writeQLinearMatMul: float16 and bfloat16 scales arrive in opset 21;
// below, they are cast to float32, which is exact, and ONNX Runtime
// computes the multiplier in float32 either way.
func writeQLinearMatMul(b *builder, n *canon.Node) error {
	ins := append([]string{}, n.Inputs...)
	for _, i := range []int{1, 4, 6} {
		dt := b.dtype(ins[i])
		if dt == canon.Float32 || b.opset >= 21 {
			continue
		}
		if dt != canon.Float16 && dt != canon.BFloat16 {
			return b.opError(n, "scale %q is %s; QLinearMatMul takes float scales", ins[i], dt)
		}
		b.expanded = true
		ins[i] = b.castTo(n, ins[i], canon.Float32, "scale_f32")
	}
	b.emit(n.Name, "QLinearMatMul", ins, n.Outputs)
	return nil
}
