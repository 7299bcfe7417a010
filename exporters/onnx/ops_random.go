package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The random family. Bernoulli is written as Cast(RandomUniformLike(p) <
// p), the body the ONNX spec gives it as a function, at every opset: ONNX
// Runtime 1.30's Bernoulli kernel draws 1 with probability 1 - p.

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"RandomUniform": {onnx: "RandomUniform", native: 1, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.RandomUniform)
			return b.writeDraw(n, "RandomUniform", op.DType, op.Seed, op.Seeded,
				attrFloat("low", op.Low), attrFloat("high", op.High), attrInts("shape", op.Shape))
		}},
		"RandomNormal": {onnx: "RandomNormal", native: 1, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.RandomNormal)
			return b.writeDraw(n, "RandomNormal", op.DType, op.Seed, op.Seeded,
				attrFloat("mean", op.Mean), attrFloat("scale", op.Scale), attrInts("shape", op.Shape))
		}},
		"RandomUniformLike": {onnx: "RandomUniformLike", native: 1, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.RandomUniformLike)
			return b.writeDraw(n, "RandomUniformLike", op.DType, op.Seed, op.Seeded, attrFloat("low", op.Low), attrFloat("high", op.High))
		}},
		"RandomNormalLike": {onnx: "RandomNormalLike", native: 1, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.RandomNormalLike)
			return b.writeDraw(n, "RandomNormalLike", op.DType, op.Seed, op.Seeded, attrFloat("mean", op.Mean), attrFloat("scale", op.Scale))
		}},
		"Bernoulli": {onnx: "RandomUniformLike", native: 1, write: writeBernoulli},
		"Multinomial": {onnx: "Multinomial", native: 7, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.Multinomial)
			return b.writeDraw(n, "Multinomial", op.DType, op.Seed, op.Seeded, attrInt("sample_size", op.SampleSize))
		}},
	})
}

// writeDraw emits a sampling node with its dtype and optional seed.
func (b *builder) writeDraw(n *canon.Node, opType string, dt canon.DType, seed float32, seeded bool, attrs ...*onnxpb.AttributeProto) error {
	code, ok := DataType(dt)
	if !ok {
		return b.opError(n, "output dtype %s has no ONNX element type", dt)
	}
	if dt == canon.BFloat16 && opType != "Multinomial" {
		return b.opError(n, "ONNX's %s draws float16, float32 or float64, not bf16: draw float32 and Cast", opType)
	}
	attrs = append(attrs, attrInt("dtype", int64(code)))
	if seeded {
		attrs = append(attrs, attrFloat("seed", seed))
	}
	b.emit(n.Name, opType, n.Inputs, n.Outputs, attrs...)
	return nil
}

func writeBernoulli(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Bernoulli)
	p := n.Inputs[0]
	pt := b.dtype(p)
	code, ok := DataType(pt)
	if !ok {
		return b.opError(n, "input dtype %s has no ONNX element type", pt)
	}
	attrs := []*onnxpb.AttributeProto{attrInt("dtype", int64(code))}
	if op.Seeded {
		attrs = append(attrs, attrFloat("seed", op.Seed))
	}
	u := b.step(n, "RandomUniformLike", "u", "", []string{p}, attrs...)
	hit := b.step(n, "Less", "hit", "", []string{u, p})
	out, ok := DataType(op.DType)
	if !ok {
		return b.opError(n, "output dtype %s has no ONNX element type", op.DType)
	}
	b.emit(n.Name, "Cast", []string{hit}, n.Outputs, attrInt("to", int64(out)))
	return nil
}
