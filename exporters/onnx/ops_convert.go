package onnxexport

import (
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The convert family: Cast, Where, Expand, Tile, Size and the
// comparisons.

func init() {
	cmp := func(onnx string, native int, bf16 int) exportEntry {
		return exportEntry{onnx: onnx, native: native, write: writeCompare, typeOpset: bf16Since(bf16)}
	}
	optable.Add(&exports, map[string]exportEntry{
		"Cast":  {onnx: "Cast", native: 6, write: writeCast, typeOpset: bf16Since(13)},
		"Where": {onnx: "Where", native: 9, write: writeWhere},
		"Expand": {onnx: "Expand", native: 8, write: func(b *builder, n *canon.Node) error {
			return b.paramInput(n, "Expand", "shape", n.Op.(*canon.Expand).Shape)
		}, typeOpset: bf16Since(13)},
		"Tile": {onnx: "Tile", native: 6, write: func(b *builder, n *canon.Node) error {
			return b.paramInput(n, "Tile", "repeats", n.Op.(*canon.Tile).Repeats)
		}, typeOpset: bf16Since(13)},
		"Size": {onnx: "Size", native: 1, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "Size", n.Inputs, n.Outputs)
			return nil
		}, typeOpset: bf16Since(13)},
		// Equal-11 is the first to compare floats; 19 compares strings.
		"Equal":   {onnx: "Equal", native: 11, write: writeCompare, typeOpset: equalTypes},
		"Less":    cmp("Less", 9, 13),
		"Greater": cmp("Greater", 9, 13),
		"LessOrEqual": {onnx: "LessOrEqual", native: 12, write: writeCompare, typeOpset: bf16Since(16),
			below: "Or(Less, Equal), false on NaN as LessOrEqual is"},
		"GreaterOrEqual": {onnx: "GreaterOrEqual", native: 12, write: writeCompare, typeOpset: bf16Since(16),
			below: "Or(Greater, Equal), false on NaN as GreaterOrEqual is"},
	})
}

// bf16Since is a typeOpset rule: the op's schema takes bfloat16 from opset
// min on, every other dtype canon has from its native opset.
func bf16Since(min int) func(canon.Op, canon.DType) int {
	return func(_ canon.Op, dt canon.DType) int {
		if dt == canon.BFloat16 {
			return min
		}
		return 0
	}
}

func writeCast(b *builder, n *canon.Node) error {
	to := n.Op.(*canon.Cast).To
	code, ok := DataType(to)
	if !ok {
		return b.opError(n, "ONNX has no element type for %s", to)
	}
	if to == canon.BFloat16 && b.opset < 13 {
		return b.needOpset(n, "Cast to bf16", 13)
	}
	b.emit(n.Name, "Cast", n.Inputs, n.Outputs, attrInt("to", int64(code)))
	return nil
}

func writeWhere(b *builder, n *canon.Node) error {
	if b.dtype(n.Inputs[1]) == canon.BFloat16 && b.opset < 16 {
		return b.needOpset(n, "Where on bf16 data", 16)
	}
	b.emit(n.Name, "Where", n.Inputs, n.Outputs)
	return nil
}

// paramInput writes an op whose parameter ONNX always takes as an i64
// input (Expand's shape, Tile's repeats): the run-time input, or the
// attribute as a generated initializer.
func (b *builder) paramInput(n *canon.Node, opType, suffix string, attr []int64) error {
	p := in(n, 1)
	if p == "" {
		p = b.i64Param(n, suffix, append([]int64{}, attr...))
	}
	b.emit(n.Name, opType, []string{n.Inputs[0], p}, n.Outputs)
	return nil
}

func writeCompare(b *builder, n *canon.Node) error {
	fn := n.Op.(*canon.Compare).Fn
	if b.opset >= 12 || (fn != canon.CmpLessOrEqual && fn != canon.CmpGreaterOrEqual) {
		b.emit(n.Name, fn.String(), n.Inputs, n.Outputs)
		return nil
	}
	// Below opset 12: a <= b is (a < b) or (a == b); both are false on NaN.
	strict := "Less"
	if fn == canon.CmpGreaterOrEqual {
		strict = "Greater"
	}
	lt := b.unique(prefix(n) + "_" + strings.ToLower(strict))
	eq := b.unique(prefix(n) + "_equal")
	b.emit(b.unique(prefix(n)+"_"+strings.ToLower(strict)+"_op"), strict, n.Inputs, []string{lt})
	b.emit(b.unique(prefix(n)+"_equal_op"), "Equal", n.Inputs, []string{eq})
	b.emit(n.Name, "Or", []string{lt, eq}, n.Outputs)
	b.expanded = true
	return nil
}
