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
	vi, ok := b.types.Lookup(scale)
	if !ok || !vi.RankKnown {
		return false
	}
	return len(vi.Shape) == 0 || (len(vi.Shape) == 1 && vi.Shape[0].Known() && vi.Shape[0].Size == 1)
}

// quantOpset is the lowest opset whose QuantizeLinear/DequantizeLinear
// expresses this node: 13 for a per-axis scale, 19 for a float16 or
// bfloat16 scale or data, 21 for blocks, 16-bit integers or output_dtype.
// Below it the node is written as its exact float32 arithmetic.
func (b *builder) quantOpset(n *canon.Node, integer canon.DType, block int64) int {
	switch {
	case block > 0, integer == canon.Int16 || integer == canon.Uint16:
		return 21
	case b.dtype(n.Inputs[1]) != canon.Float32:
		return 19
	case !b.perTensor(n.Inputs[1]):
		return 13
	}
	return 10
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
	min := b.quantOpset(n, out, op.BlockSize)
	if b.dtype(n.Inputs[0]) != canon.Float32 {
		min = max(min, 19)
	}
	if min > b.opset {
		return b.expandQuantize(n, op)
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
		return b.expandQuantize(n, op)
	}
	b.emit(n.Name, "QuantizeLinear", ins, n.Outputs, attrs...)
	return nil
}

func writeDequantizeLinear(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.DequantizeLinear)
	min := b.quantOpset(n, b.dtype(n.Inputs[0]), op.BlockSize)
	if min > b.opset || (op.OutputDType != canon.Undefined && op.OutputDType != b.dtype(n.Inputs[1])) {
		return b.expandDequantize(n, op)
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

// ---- expansions for opsets whose QuantizeLinear/DequantizeLinear cannot
// express a node (16-bit types, blocks, float16 scales) ----

// quantBroadcast returns param (a scale or zero point, already float32)
// shaped to broadcast against X of static shape xs: per tensor as is,
// per axis reshaped to (1.., d, ..1), blocked repeated block times along
// the axis and cut to X's size.
func (b *builder) quantBroadcast(n *canon.Node, param, suffix string, xs []int64, axis, block int64) (string, error) {
	if block == 0 && b.perTensor(n.Inputs[1]) {
		return param, nil
	}
	r := int64(len(xs))
	a := axis
	if a < 0 {
		a += r
	}
	if a < 0 || a >= r {
		return "", b.opError(n, "axis %d is out of range for X of shape %v", axis, xs)
	}
	if block == 0 {
		shape := make([]int64, r)
		for i := range shape {
			shape[i] = 1
		}
		shape[a] = -1
		return b.step(n, "Reshape", suffix+"_along_axis", "", []string{param, b.i64Param(n, suffix+"_shape", shape)}), nil
	}
	nb := (xs[a] + block - 1) / block
	split := append(append(append([]int64{}, xs[:a]...), nb, 1), xs[a+1:]...)
	wide := append(append(append([]int64{}, xs[:a]...), nb, block), xs[a+1:]...)
	merged := append(append(append([]int64{}, xs[:a]...), nb*block), xs[a+1:]...)
	v := b.step(n, "Reshape", suffix+"_blocks", "", []string{param, b.i64Param(n, suffix+"_blocks_shape", split)})
	v = b.step(n, "Expand", suffix+"_repeated", "", []string{v, b.i64Param(n, suffix+"_repeated_shape", wide)})
	v = b.step(n, "Reshape", suffix+"_merged", "", []string{v, b.i64Param(n, suffix+"_merged_shape", merged)})
	if nb*block != xs[a] {
		v = b.step(n, "Slice", suffix+"_cut", "", []string{v, b.i64Param(n, suffix+"_start", []int64{0}),
			b.i64Param(n, suffix+"_end", []int64{xs[a]}), b.i64Param(n, suffix+"_axis", []int64{a})})
	}
	return v, nil
}

// quantOperands returns X's static shape and the float32 scale and zero
// point (when given) broadcast against it.
func (b *builder) quantOperands(n *canon.Node, axis, block int64) (xs []int64, scale, zp string, err error) {
	vi := b.types.Get(n.Inputs[0])
	xs, ok := vi.StaticShape()
	if !ok {
		return nil, "", "", b.opError(n, "writing this quantization as Cast, Mul and Round needs X's static shape")
	}
	scale = n.Inputs[1]
	if b.dtype(scale) != canon.Float32 {
		scale = b.castTo(n, scale, canon.Float32, "scale_f32")
	}
	if scale, err = b.quantBroadcast(n, scale, "scale", xs, axis, block); err != nil {
		return nil, "", "", err
	}
	if z := in(n, 2); z != "" {
		zp = b.castTo(n, z, canon.Float32, "zero_point_f32")
		if zp, err = b.quantBroadcast(n, zp, "zero_point", xs, axis, block); err != nil {
			return nil, "", "", err
		}
	}
	return xs, scale, zp, nil
}

// expandDequantize writes (float32(x) - float32(zp)) · scale, cast to the
// output type: the interpreter's arithmetic, exact for 8- and 16-bit x.
func (b *builder) expandDequantize(n *canon.Node, op *canon.DequantizeLinear) error {
	switch dt := b.dtype(n.Inputs[0]); dt {
	case canon.Int8, canon.Uint8, canon.Int16, canon.Uint16:
	default:
		return b.opError(n, "X is %s: only 8- and 16-bit data converts to float32 exactly", dt)
	}
	b.expanded = true
	_, scale, zp, err := b.quantOperands(n, op.Axis, op.BlockSize)
	if err != nil {
		return err
	}
	v := b.castTo(n, n.Inputs[0], canon.Float32, "x_f32")
	if zp != "" {
		v = b.step(n, "Sub", "centered", "", []string{v, zp})
	}
	out := n.Outputs[0]
	if b.dtype(out) != canon.Float32 {
		v = b.step(n, "Mul", "scaled", "", []string{v, scale})
		b.emit(b.unique(prefix(n)+"_cast_op"), "Cast", []string{v}, []string{out}, attrInt("to", int64(mustCode(b.dtype(out)))))
		return nil
	}
	b.step(n, "Mul", "scaled", out, []string{v, scale})
	return nil
}

// expandQuantize writes Cast(Clip(Round(x / scale) + zp, lo, hi)) in
// float32: Round is half to even, and the clamped values are integers the
// Cast converts exactly.
func (b *builder) expandQuantize(n *canon.Node, op *canon.QuantizeLinear) error {
	out := b.dtype(n.Outputs[0])
	b.expanded = true
	_, scale, zp, err := b.quantOperands(n, op.Axis, op.BlockSize)
	if err != nil {
		return err
	}
	x := n.Inputs[0]
	if b.dtype(x) != canon.Float32 {
		x = b.castTo(n, x, canon.Float32, "x_f32")
	}
	v := b.step(n, "Div", "scaled", "", []string{x, scale})
	v = b.step(n, "Round", "rounded", "", []string{v})
	if zp != "" {
		v = b.step(n, "Add", "shifted", "", []string{v, zp})
	}
	lo, hi := canon.QuantRange(out)
	v = b.step(n, "Clip", "saturated", "", []string{v, b.scalarParam(n, "lo", canon.Float32, float64(lo)), b.scalarParam(n, "hi", canon.Float32, float64(hi))})
	b.emit(b.unique(prefix(n)+"_cast_op"), "Cast", []string{v}, n.Outputs, attrInt("to", int64(mustCode(out))))
	return nil
}

func mustCode(dt canon.DType) int32 {
	code, _ := DataType(dt)
	return code
}
