package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&writers, map[string]opWriter{
		"LRN": {"LRN (odd sizes: MXNet's window for an even nsize spans nsize+1 channels)", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.LRN)
			if op.Size%2 == 0 {
				return fmt.Errorf("LRN size %d is even: MXNet's window for an even nsize spans nsize+1 channels", op.Size)
			}
			if r, ok := e.rank(n.Inputs[0]); ok && r != 4 {
				return fmt.Errorf("MXNet's LRN takes 4-D (N, C, H, W) input; this one has rank %d", r)
			}
			return e.single(n, "LRN", map[string]string{"nsize": strconv.FormatInt(op.Size, 10), "alpha": f32(op.Alpha),
				"beta": f32(op.Beta), "knorm": f32(op.Bias)}, n.Inputs[0])
		}},
	})
}
