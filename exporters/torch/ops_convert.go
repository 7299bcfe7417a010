package torchexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The convert family: Cast, Where, Expand, Tile, Size and the comparisons.

func init() {
	cmp := func(f string) opWriter {
		return opWriter{write: func(gen *generator, _ *canon.Node) error { return gen.call(f+"(%s, %s)", 0, 1) }, detail: f}
	}
	optable.Add(&opWriters, map[string]opWriter{
		"Cast": {write: writeCast, detail: "Tensor.to(dtype) (float to integer truncates toward zero, as ONNX Runtime does); torch 1.13 has no u16/u32/u64"},
		"Where": {write: func(gen *generator, _ *canon.Node) error {
			return gen.call("torch.where(%s, %s, %s)", 0, 1, 2)
		}, detail: "torch.where"},
		"Expand": {write: writeExpand, detail: "Tensor.expand to the broadcast output shape, which must be static"},
		"Tile": {write: func(gen *generator, n *canon.Node) error {
			return gen.call("%s.repeat"+pyInts(n.Op.(*canon.Tile).Repeats, true), 0)
		}, detail: "Tensor.repeat"},
		"Size": {write: func(gen *generator, _ *canon.Node) error {
			return gen.call("torch.tensor(%s.numel(), dtype=torch.int64)", 0)
		}, detail: "Tensor.numel as an int64 tensor"},
		"Equal":          cmp("torch.eq"),
		"Less":           cmp("torch.lt"),
		"LessOrEqual":    cmp("torch.le"),
		"Greater":        cmp("torch.gt"),
		"GreaterOrEqual": cmp("torch.ge"),
	})
}

func writeCast(gen *generator, n *canon.Node) error {
	to := n.Op.(*canon.Cast).To
	name, ok := torchDTypes[to]
	if !ok {
		return gen.fail("PyTorch 1.13 has no dtype %s to cast to", to)
	}
	if dt, ok := gen.inDType(0); ok {
		if _, has := torchDTypes[dt]; !has {
			return gen.fail("PyTorch 1.13 has no dtype %s to cast from", dt)
		}
	}
	return gen.call("%s.to("+name+")", 0)
}

// writeExpand: ONNX's Expand broadcasts both ways (a 1 in the target keeps
// the input's size); Tensor.expand to the broadcast result is the same.
func writeExpand(gen *generator, n *canon.Node) error {
	shape, ok := gen.shapeOf(n.Outputs[0])
	if !ok {
		return gen.fail("the output shape must be known before running")
	}
	return gen.call("%s.expand"+pyInts(shape, true), 0)
}
