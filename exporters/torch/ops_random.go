package torchexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The random family, written as PyTorch's samplers of the same
// distribution. PyTorch's generator is its own: an ONNX seed attribute is
// not carried (no seed makes PyTorch repeat another runtime's stream).

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"RandomUniform": {write: func(gen *generator, n *canon.Node) error {
			op := n.Op.(*canon.RandomUniform)
			return gen.writeFill(op.DType, pyInts(op.Shape, true), fmt.Sprintf("uniform_(%s, %s)", pyFloat(op.Low), pyFloat(op.High)))
		}, detail: "torch.empty(shape).uniform_(low, high)"},
		"RandomNormal": {write: func(gen *generator, n *canon.Node) error {
			op := n.Op.(*canon.RandomNormal)
			return gen.writeFill(op.DType, pyInts(op.Shape, true), fmt.Sprintf("normal_(%s, %s)", pyFloat(op.Mean), pyFloat(op.Scale)))
		}, detail: "torch.empty(shape).normal_(mean, scale)"},
		"RandomUniformLike": {write: func(gen *generator, n *canon.Node) error {
			op := n.Op.(*canon.RandomUniformLike)
			x, err := gen.in(0)
			if err != nil {
				return err
			}
			return gen.writeFill(op.DType, x+".shape", fmt.Sprintf("uniform_(%s, %s)", pyFloat(op.Low), pyFloat(op.High)))
		}, detail: "torch.empty(x.shape).uniform_(low, high)"},
		"RandomNormalLike": {write: func(gen *generator, n *canon.Node) error {
			op := n.Op.(*canon.RandomNormalLike)
			x, err := gen.in(0)
			if err != nil {
				return err
			}
			return gen.writeFill(op.DType, x+".shape", fmt.Sprintf("normal_(%s, %s)", pyFloat(op.Mean), pyFloat(op.Scale)))
		}, detail: "torch.empty(x.shape).normal_(mean, scale)"},
		"Bernoulli": {write: func(gen *generator, n *canon.Node) error {
			td, err := gen.genDType(n.Op.(*canon.Bernoulli).DType)
			if err != nil {
				return err
			}
			if dt, ok := gen.inDType(0); ok && dt != canon.Float32 && dt != canon.Float64 {
				// PyTorch's CPU bernoulli takes float32 and float64
				// probabilities; a half one is widened exactly.
				return gen.call("torch.bernoulli(%s.float()).to("+td+")", 0)
			}
			return gen.call("torch.bernoulli(%s).to("+td+")", 0)
		}, detail: "torch.bernoulli (half probabilities widened to float32)"},
		"Multinomial": {write: func(gen *generator, n *canon.Node) error {
			op := n.Op.(*canon.Multinomial)
			td, err := gen.genDType(op.DType)
			if err != nil {
				return err
			}
			return gen.call(fmt.Sprintf("torch.multinomial(torch.softmax(%%s, 1), %d, replacement=True).to(%s)", op.SampleSize, td), 0)
		}, detail: "torch.multinomial of the softmax of the log-probabilities, with replacement"},
	})
}

// writeFill assigns a tensor of the given shape expression and dtype filled
// in place by fill (uniform_ or normal_).
func (gen *generator) writeFill(dt canon.DType, shape, fill string) error {
	td, err := gen.genDType(dt)
	if err != nil {
		return err
	}
	gen.assign(fmt.Sprintf("torch.empty(%s, dtype=%s).%s", shape, td, fill))
	return nil
}
