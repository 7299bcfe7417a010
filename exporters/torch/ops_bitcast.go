package torchexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// BitCast is Tensor.view(dtype), which reinterprets the bytes of a tensor
// as a dtype of the same width. PyTorch 1.13 has no uint16, uint32 or
// uint64, so those are refused on either side.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"BitCast": {write: writeBitCast, floatOnly: "reinterpreted views (PyTorch 1.13 dtypes only)",
			accepts: func(dt canon.DType) bool { _, ok := torchDTypes[dt]; return ok },
			detail:  "Tensor.view(dtype) between PyTorch 1.13's dtypes"},
	})
}

func writeBitCast(gen *generator, n *canon.Node) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	to, err := torchDType(gen, n.Op.(*canon.BitCast).To)
	if err != nil {
		return err
	}
	gen.assign(x + ".view(" + to + ")")
	return nil
}
