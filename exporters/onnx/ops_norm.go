package onnxexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The normalization family and LpPool, GlobalLpPool, MaxUnpool. A
// normalization the target opset lacks is written as canon's expansion of
// it (the op's Decompose: ReduceMean, Sub, Mul, Add, Sqrt, Div and
// Reshape, statistics in the op's stash type as ONNX's own function
// bodies compute them).

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"LayerNormalization": {onnx: "LayerNormalization", native: 17, write: writeLayerNorm,
			below: "ReduceMean, Sub, Mul, Add, Sqrt, Div (Reciprocal for InvStdDev)"},
		"GroupNormalization": {onnx: "GroupNormalization", native: 21, write: writeGroupNorm,
			below: "GroupNormalization-18 when scale and bias are constant per group, else Reshape to (N, groups, -1), the LayerNormalization expansion, Reshape back, Mul and Add"},
		"InstanceNormalization": {onnx: "InstanceNormalization", native: 6, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "InstanceNormalization", n.Inputs, n.Outputs, attrFloat("epsilon", n.Op.(*canon.InstanceNorm).Epsilon))
			return nil
		}},
		"RMSNormalization": {onnx: "RMSNormalization", native: 23, write: writeRMSNorm,
			below: "Mul, ReduceMean, Add, Sqrt, Div, Mul"},
		"LpNormalization": {onnx: "LpNormalization", native: 1, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.LpNorm)
			b.emit(n.Name, "LpNormalization", n.Inputs, n.Outputs, attrInt("axis", op.Axis), attrInt("p", op.P))
			return nil
		}},
		"MeanVarianceNormalization": {onnx: "MeanVarianceNormalization", native: 9, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "MeanVarianceNormalization", n.Inputs, n.Outputs, attrInts("axes", n.Op.(*canon.MeanVarNorm).Axes))
			return nil
		}, typeOpset: bf16Since(13)},
		"LpPool":       {onnx: "LpPool", native: 11, write: writeLpPool},
		"GlobalLpPool": {onnx: "GlobalLpPool", native: 2, write: writeGlobalLpPool},
		"MaxUnpool":    {onnx: "MaxUnpool", native: 11, write: writeMaxUnpool},
	})
}

// step emits one helper node of n's expansion and returns its output (out,
// or a fresh name when out is "").
func (b *builder) step(n *canon.Node, opType, suffix, out string, ins []string, attrs ...*onnxpb.AttributeProto) string {
	if out == "" {
		out = b.unique(prefix(n) + "_" + suffix)
	}
	b.emit(b.unique(prefix(n)+"_"+suffix+"_op"), opType, ins, []string{out}, attrs...)
	return out
}

// writeLayerNorm writes LayerNormalization from opset 17 and canon's
// expansion below, where a stash type other than float32 and the data's
// own is refused (naming opset 17).
func writeLayerNorm(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.LayerNorm)
	if b.opset >= 17 {
		b.emit(n.Name, "LayerNormalization", n.Inputs, n.Outputs, attrInt("axis", op.Axis), attrFloat("epsilon", op.Epsilon),
			attrInt("stash_type", int64(dataTypeOf(op.Stash))))
		return nil
	}
	if dt := b.dtype(n.Inputs[0]); op.Stash != canon.Float32 && dt != op.Stash {
		return b.needOpset(n, fmt.Sprintf("LayerNormalization with stash type %s", op.Stash), 17)
	}
	return b.writeExpansion(n)
}

// writeRMSNorm writes RMSNormalization from opset 23 and canon's
// expansion below.
func writeRMSNorm(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.RMSNorm)
	if b.opset >= 23 {
		b.emit(n.Name, "RMSNormalization", n.Inputs, n.Outputs, attrInt("axis", op.Axis), attrFloat("epsilon", op.Epsilon),
			attrInt("stash_type", int64(dataTypeOf(op.Stash))))
		return nil
	}
	return b.writeExpansion(n)
}

func writeGroupNorm(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.GroupNorm)
	x := n.Inputs[0]
	dt := b.dtype(x)
	if b.opset >= 21 {
		b.emit(n.Name, "GroupNormalization", n.Inputs, n.Outputs, attrInt("num_groups", op.NumGroups),
			attrFloat("epsilon", op.Epsilon), attrInt("stash_type", int64(dataTypeOf(op.Stash))))
		return nil
	}
	if b.opset >= 18 && op.Stash == canon.Float32 {
		scale, ok1 := perGroup(b.g.Initializer(in(n, 1)), op.NumGroups)
		bias, ok2 := perGroup(b.g.Initializer(in(n, 2)), op.NumGroups)
		if ok1 && ok2 && dt == canon.Float32 {
			g := []int64{op.NumGroups}
			b.emit(n.Name, "GroupNormalization", []string{x, b.f32Param(n, "group_scale", g, scale), b.f32Param(n, "group_bias", g, bias)},
				n.Outputs, attrInt("num_groups", op.NumGroups), attrFloat("epsilon", op.Epsilon))
			return nil
		}
	}
	if op.Stash != canon.Float32 && dt != op.Stash {
		return b.needOpset(n, fmt.Sprintf("GroupNormalization with stash type %s", op.Stash), 21)
	}
	return b.writeExpansion(n)
}

// perGroup returns a constant per-channel f32 vector as one value per
// group, when every channel of a group holds the same value.
func perGroup(t *canon.Tensor, groups int64) ([]float32, bool) {
	if t == nil || t.DType != canon.Float32 || len(t.Shape) != 1 || t.Shape[0]%groups != 0 {
		return nil, false
	}
	v, err := t.Float64s()
	if err != nil {
		return nil, false
	}
	per := int(t.Shape[0] / groups)
	out := make([]float32, groups)
	for g := range out {
		out[g] = float32(v[g*per])
		for _, e := range v[g*per : (g+1)*per] {
			if e != v[g*per] {
				return nil, false
			}
		}
	}
	return out, true
}

func writeLpPool(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.LpPool)
	attrs := []*onnxpb.AttributeProto{attrInts("kernel_shape", op.Kernel), attrInts("strides", op.Strides),
		attrInts("pads", concat(op.PadsBegin, op.PadsEnd)), attrInt("p", op.P)}
	plain := !op.CeilMode
	for _, d := range op.Dilations {
		plain = plain && d == 1
	}
	if !plain {
		if b.opset < 18 {
			return b.needOpset(n, "LpPool with dilations or ceil_mode", 18)
		}
		attrs = append(attrs, attrInts("dilations", op.Dilations), attrBool("ceil_mode", op.CeilMode))
	}
	b.emit(n.Name, "LpPool", n.Inputs, n.Outputs, attrs...)
	return nil
}

func writeMaxUnpool(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.MaxUnpool)
	ins := []string{n.Inputs[0], n.Inputs[1]}
	if op.OutputShape != nil {
		ins = append(ins, b.i64Param(n, "output_shape", op.OutputShape))
	}
	b.emit(n.Name, "MaxUnpool", ins, n.Outputs, attrInts("kernel_shape", op.Kernel), attrInts("strides", op.Strides),
		attrInts("pads", concat(op.PadsBegin, op.PadsEnd)))
	return nil
}

// dataTypeOf is the ONNX element type number of a float dtype (FLOAT when
// it has none).
func dataTypeOf(dt canon.DType) int32 {
	if code, ok := DataType(dt); ok {
		return code
	}
	return int32(onnxpb.TensorProto_FLOAT)
}

// writeGlobalLpPool writes GlobalLpPool natively up to opset 21. ONNX
// Runtime 1.30 has no kernel for GlobalLpPool-22, so from 22 it is written
// as its definition, (Σ|x|^p)^(1/p) over the spatial axes.
func writeGlobalLpPool(b *builder, n *canon.Node) error {
	p := n.Op.(*canon.GlobalLpPool).P
	if b.opset < 22 {
		b.emit(n.Name, "GlobalLpPool", n.Inputs, n.Outputs, attrInt("p", p))
		return nil
	}
	r := b.rank(n.Inputs[0])
	if r < 3 {
		return b.opError(n, "GlobalLpPool at opset 22 or newer is written as its definition, which needs the input's rank (known: %d)", r)
	}
	axes := make([]int64, 0, r-2)
	for a := 2; a < r; a++ {
		axes = append(axes, int64(a))
	}
	dt := b.dtype(n.Inputs[0])
	abs := b.step(n, "Abs", "abs", "", []string{n.Inputs[0]})
	pw := b.step(n, "Pow", "pow", "", []string{abs, b.scalarParam(n, "p", dt, float64(p))})
	sum := b.step(n, "ReduceSum", "sum", "", []string{pw, b.i64Param(n, "axes", axes)}, attrInt("keepdims", 1))
	b.step(n, "Pow", "root", n.Outputs[0], []string{sum, b.scalarParam(n, "inv_p", dt, 1/float64(p))})
	return nil
}
