package tfliteexport

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

func init() {
	optable.Add(&writers, map[string]writer{
		"LayerNormalization": {writeLayerNorm, "MEAN, SUB, MUL, MEAN, ADD, SQRT, DIV, MUL (+ ADD): its formula, over the normalized axes of the file layout"},
	})
}

// writeLayerNorm writes layer normalization as its formula: TFLite has no
// builtin for it (TensorFlow's converter writes the same ops).
func writeLayerNorm(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.LayerNorm)
	for _, o := range n.Outputs[1:] {
		if o != "" && (len(e.consumers[o]) > 0 || e.isOutput[o]) {
			return nodeErr(n, "its mean and inverse standard deviation outputs are used; TFLite export writes the normalized output only")
		}
	}
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if e.dtype(n.Inputs[0]) != canon.Float32 {
		return nodeErr(n, "%s input: TFLite export normalizes float32 only", e.dtype(n.Inputs[0]))
	}
	r := len(xs)
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	axis := normAxis(op.Axis, r)
	var fa []int32
	reduced := append([]int32{}, e.m.tensors[x].shape...)
	for a := axis; a < int64(r); a++ {
		k := fileAxis(perm, r, a)
		fa = append(fa, k)
		reduced[k] = 1
	}
	full := e.m.tensors[x].shape
	step := func(what string, shape []int32) (int32, error) {
		return e.scratch(n.Name+"/"+what, shape, canon.Float32)
	}
	axesT, err := e.constI32(n.Name+"/axes", []int32{int32(len(fa))}, fa)
	if err != nil {
		return err
	}
	mean := func(in, out int32) {
		e.emit(tflitefb.BuiltinOperatorMEAN, []int32{in, axesT}, []int32{out}, tflitefb.BuiltinOptionsReducerOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.ReducerOptionsStart(b)
			tflitefb.ReducerOptionsAddKeepDims(b, true)
			return tflitefb.ReducerOptionsEnd(b)
		})
	}
	var ids [6]int32
	for i, s := range []struct {
		what  string
		shape []int32
	}{{"mean", reduced}, {"centered", full}, {"squared", full}, {"variance", reduced}, {"shifted", reduced}, {"stddev", reduced}} {
		if ids[i], err = step(s.what, s.shape); err != nil {
			return err
		}
	}
	eps, err := e.scalarF32(n.Name+"/epsilon", op.Epsilon)
	if err != nil {
		return err
	}
	mean(x, ids[0])
	e.binaryOp(tflitefb.BuiltinOperatorSUB, x, ids[0], ids[1], 0)
	e.binaryOp(tflitefb.BuiltinOperatorMUL, ids[1], ids[1], ids[2], 0)
	mean(ids[2], ids[3])
	e.binaryOp(tflitefb.BuiltinOperatorADD, ids[3], eps, ids[4], 0)
	e.emit(tflitefb.BuiltinOperatorSQRT, []int32{ids[4]}, []int32{ids[5]}, 0, nil)
	normed, err := step("normalized", full)
	if err != nil {
		return err
	}
	e.binaryOp(tflitefb.BuiltinOperatorDIV, ids[1], ids[5], normed, 0)
	scale, err := e.inputRank(n.Inputs[1], r, perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	hasBias := len(n.Inputs) > 2 && n.Inputs[2] != ""
	scaled := normed
	out, err := e.define(n.Outputs[0], perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if !hasBias {
		e.binaryOp(tflitefb.BuiltinOperatorMUL, normed, scale, out, 0)
		return nil
	}
	if scaled, err = step("scaled", full); err != nil {
		return err
	}
	e.binaryOp(tflitefb.BuiltinOperatorMUL, normed, scale, scaled, 0)
	bias, err := e.inputRank(n.Inputs[2], r, perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.binaryOp(tflitefb.BuiltinOperatorADD, scaled, bias, out, 0)
	return nil
}
