package onnxexport

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The reduce family: the Reduce* ops, ArgMax/ArgMin, TopK and CumSum. A
// Reduce op's axes are an attribute until the op's version that moved them
// to an input (ReduceSum 13, the others 18), an input from then on.

func init() {
	entries := map[string]exportEntry{
		"ArgMax": {onnx: "ArgMax", native: 11, write: writeArgReduce, below: "select_last_index below opset 12: size-1 minus the arg of the input reversed by Slice (static shape)"},
		"ArgMin": {onnx: "ArgMin", native: 11, write: writeArgReduce, below: "select_last_index below opset 12: size-1 minus the arg of the input reversed by Slice (static shape)"},
		"TopK":   {onnx: "TopK", native: 11, write: writeTopK},
		"CumSum": {onnx: "CumSum", native: 11, write: writeCumSum, typeOpset: func(_ canon.Op, dt canon.DType) int {
			if dt == canon.Float16 || dt == canon.BFloat16 {
				return 14 // CumSum-14 added float16 and bfloat16
			}
			return 0
		}},
	}
	for _, fn := range canon.ReduceFns() {
		entries[fn.String()] = exportEntry{onnx: fn.String(), native: 1, write: writeReduce, typeOpset: reduceTypes}
	}
	optable.Add(&exports, entries)
}

// reduceTypes: Reduce*-13 added bfloat16; ReduceMax/Min-12 added int8 and
// uint8, 20 bool.
func reduceTypes(op canon.Op, dt canon.DType) int {
	fn := op.(*canon.Reduce).Fn
	extreme := fn == canon.ReduceMax || fn == canon.ReduceMin
	switch {
	case dt == canon.BFloat16:
		return 13
	case extreme && (dt == canon.Int8 || dt == canon.Uint8):
		return 12
	case extreme && dt == canon.Bool:
		return 20
	}
	return 0
}

// reduceAxesInput is the opset from which fn's axes are an input.
func reduceAxesInput(fn canon.ReduceFn) int {
	if fn == canon.ReduceSum {
		return 13
	}
	return 18
}

func writeReduce(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Reduce)
	switch dt := b.dtype(n.Inputs[0]); dt {
	case canon.Int8, canon.Uint8, canon.Int16, canon.Uint16:
		if op.Fn != canon.ReduceMax && op.Fn != canon.ReduceMin {
			return b.opError(n, "ONNX %s takes no %s data at any opset; cast the input to int32 first", op.Fn, dt)
		}
		if dt == canon.Int16 || dt == canon.Uint16 {
			return b.opError(n, "ONNX %s takes no %s data at any opset; cast the input to int32 first", op.Fn, dt)
		}
	}
	attrs := []*onnxpb.AttributeProto{attrBool("keepdims", op.KeepDims)}
	ins := []string{n.Inputs[0]}
	since := reduceAxesInput(op.Fn)
	if axes := in(n, 1); axes != "" {
		if b.opset < since {
			return b.needOpset(n, fmt.Sprintf("%s with axes computed at run time", op.Fn), since)
		}
		ins = append(ins, axes)
		if op.NoopWithEmptyAxes {
			attrs = append(attrs, attrInt("noop_with_empty_axes", 1))
		}
	} else if len(op.Axes) > 0 {
		if b.opset >= since {
			ins = append(ins, b.i64Param(n, "axes", op.Axes))
		} else {
			attrs = append(attrs, attrInts("axes", op.Axes))
		}
	}
	b.emit(n.Name, op.Fn.String(), ins, n.Outputs, attrs...)
	return nil
}

func writeArgReduce(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.ArgReduce)
	attrs := []*onnxpb.AttributeProto{attrInt("axis", op.Axis), attrBool("keepdims", op.KeepDims)}
	if op.SelectLastIndex && b.opset >= 12 {
		attrs = append(attrs, attrInt("select_last_index", 1))
	} else if op.SelectLastIndex {
		return writeArgLast(b, n, op, attrs)
	}
	b.emit(n.Name, op.Kind(), n.Inputs, n.Outputs, attrs...)
	return nil
}

// writeArgLast expands select_last_index below opset 12: the last extreme
// of x is size-1 minus the first extreme of x reversed along the axis.
func writeArgLast(b *builder, n *canon.Node, op *canon.ArgReduce, attrs []*onnxpb.AttributeProto) error {
	x := n.Inputs[0]
	shape, ok := b.types.Get(x).StaticShape()
	if !ok {
		return b.needOpset(n, op.Kind()+" with select_last_index on an input of unknown shape", 12)
	}
	a := op.Axis
	if a < 0 {
		a += int64(len(shape))
	}
	rev := b.unique(prefix(n) + "_reversed")
	b.emit(b.unique(prefix(n)+"_reverse"), "Slice", []string{x, b.i64Param(n, "starts", []int64{-1}),
		b.i64Param(n, "ends", []int64{math.MinInt64}), b.i64Param(n, "axes", []int64{a}), b.i64Param(n, "steps", []int64{-1})}, []string{rev})
	first := b.unique(prefix(n) + "_first")
	b.emit(b.unique(prefix(n)+"_arg"), op.Kind(), []string{rev}, []string{first}, attrs...)
	last := b.param(n, "last", canon.NewInt64Tensor("", []int64{}, []int64{shape[a] - 1}))
	b.emit(n.Name, "Sub", []string{last, first}, n.Outputs)
	b.expanded = true
	return nil
}

// writeTopK writes TopK-11: k a one-element i64 input; both outputs are
// required, so a missing indices output gets a name nothing reads.
func writeTopK(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.TopK)
	k := in(n, 1)
	if k == "" {
		k = b.i64Param(n, "k", []int64{op.K})
	}
	outs := append([]string{}, n.Outputs...)
	for len(outs) < 2 {
		outs = append(outs, "")
	}
	for i, o := range outs {
		if o == "" {
			outs[i] = b.unique(prefix(n) + []string{"_values", "_indices"}[i])
		}
	}
	b.emit(n.Name, "TopK", []string{n.Inputs[0], k}, outs,
		attrInt("axis", op.Axis), attrBool("largest", op.Largest), attrBool("sorted", op.Sorted))
	return nil
}

func writeCumSum(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.CumSum)
	switch dt := b.dtype(n.Inputs[0]); dt {
	case canon.Int8, canon.Uint8, canon.Int16, canon.Uint16:
		return b.opError(n, "ONNX CumSum takes no %s data at any opset; cast the input to int32 first", dt)
	}
	axis := in(n, 1)
	if axis == "" {
		axis = b.param(n, "axis", canon.NewInt64Tensor("", []int64{}, []int64{op.Axis}))
	}
	b.emit(n.Name, "CumSum", []string{n.Inputs[0], axis}, n.Outputs,
		attrBool("exclusive", op.Exclusive), attrBool("reverse", op.Reverse))
	return nil
}
