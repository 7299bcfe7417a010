package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The activation family: LogSoftmax, Hardmax, Celu, Mish, ThresholdedRelu,
// Shrink, Einsum.

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"LogSoftmax": {onnx: "LogSoftmax", native: 13, write: func(b *builder, n *canon.Node) error {
			return b.alongAxis(n, "LogSoftmax", n.Op.(*canon.LogSoftmax).Axis)
		}, below: "LogSoftmax on the last axis, other axes between two Transposes"},
		"Hardmax": {onnx: "Hardmax", native: 13, write: func(b *builder, n *canon.Node) error {
			return b.alongAxis(n, "Hardmax", n.Op.(*canon.Hardmax).Axis)
		}, below: "Hardmax on the last axis, other axes between two Transposes"},
		"Celu": {onnx: "Celu", native: 12, write: writeCelu,
			below: "alpha·Elu(x/alpha) (also for non-float32 data, which Celu does not take)"},
		"Mish": {onnx: "Mish", native: 18, write: writeMish, below: "x·Tanh(Softplus(x))"},
		"ThresholdedRelu": {onnx: "ThresholdedRelu", native: 10, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "ThresholdedRelu", n.Inputs, n.Outputs, attrFloat("alpha", n.Op.(*canon.ThresholdedRelu).Alpha))
			return nil
		}},
		"Shrink": {onnx: "Shrink", native: 9, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.Shrink)
			b.emit(n.Name, "Shrink", n.Inputs, n.Outputs, attrFloat("bias", op.Bias), attrFloat("lambd", op.Lambd))
			return nil
		}},
		// Einsum exists from opset 12; the exporter refuses it below.
		"Einsum": {onnx: "Einsum", native: 12, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "Einsum", n.Inputs, n.Outputs, attrString("equation", n.Op.(*canon.Einsum).Equation))
			return nil
		}},
	})
}

// alongAxis writes LogSoftmax or Hardmax. From opset 13 they take one
// axis; before, they flatten to 2-D at axis, which is the same only for
// the last axis: another axis is swapped last, and back, by Transposes.
func (b *builder) alongAxis(n *canon.Node, opType string, axis int64) error {
	x := n.Inputs[0]
	if b.opset >= 13 || axis == -1 {
		b.emit(n.Name, opType, n.Inputs, n.Outputs, attrInt("axis", axis))
		return nil
	}
	r := b.rank(x)
	if r < 0 {
		return b.opError(n, "%s over axis %d at opset %d needs the rank of input %q, which is unknown; run shape inference or choose opset 13 or newer", opType, axis, b.opset, x)
	}
	if axis < 0 {
		axis += int64(r) // validation keeps it in range
	}
	if axis == int64(r-1) {
		b.emit(n.Name, opType, n.Inputs, n.Outputs, attrInt("axis", axis))
		return nil
	}
	b.expanded = true
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(i)
	}
	perm[axis], perm[r-1] = perm[r-1], perm[axis]
	p := prefix(n)
	t1, t2 := b.unique(p+"_axis_last"), b.unique(p+"_axis_last_out")
	b.emit(b.unique(p+"_transpose_in"), "Transpose", []string{x}, []string{t1}, attrInts("perm", perm))
	b.emit(n.Name, opType, []string{t1}, []string{t2}, attrInt("axis", int64(r-1)))
	b.emit(b.unique(p+"_transpose_out"), "Transpose", []string{t2}, n.Outputs, attrInts("perm", perm))
	return nil
}

// activationScalar is a scalar initializer of x's float dtype.
func (b *builder) activationScalar(n *canon.Node, dt canon.DType, suffix string, v float32) (string, error) {
	data, ok := scalarBytes(dt, v)
	if !ok {
		return "", b.opError(n, "%s %g cannot be written as %s", suffix, v, dt)
	}
	return b.param(n, suffix, &canon.Tensor{DType: dt, Shape: []int64{}, Data: data}), nil
}

// writeCelu writes Celu (float32 only, from opset 12) or canon's exact
// expansion alpha·Elu(x/alpha), which covers the other float dtypes too.
func writeCelu(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Celu)
	dt := b.dtype(n.Inputs[0])
	if b.opset >= 12 && (dt == canon.Float32 || dt == canon.Undefined) {
		b.emit(n.Name, "Celu", n.Inputs, n.Outputs, attrFloat("alpha", op.Alpha))
		return nil
	}
	return b.writeExpansion(n)
}

// writeMish writes Mish (opset 18) or, below, canon's expansion
// x·Tanh(Softplus(x)).
func writeMish(b *builder, n *canon.Node) error {
	if b.opset >= 18 {
		b.emit(n.Name, "Mish", n.Inputs, n.Outputs)
		return nil
	}
	return b.writeExpansion(n)
}
