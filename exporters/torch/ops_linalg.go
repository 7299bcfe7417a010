package torchexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The linear-algebra family: Det is torch.linalg.det, which PyTorch
// computes for float32 and float64 matrices.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"Det": {write: writeDet, floatOnly: "determinants (float32 and float64)", detail: "torch.linalg.det",
			accepts: func(dt canon.DType) bool { return dt == canon.Float32 || dt == canon.Float64 }},
	})
}

func writeDet(gen *generator, n *canon.Node) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	gen.assign("torch.linalg.det(" + x + ")")
	return nil
}
