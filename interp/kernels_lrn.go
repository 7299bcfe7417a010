package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"LRN": float32Only(withOp(runLRN)),
	})
}

// runLRN follows ONNX: the window of channel c runs from
// c - floor((size-1)/2) to c + ceil((size-1)/2), clipped to the channels.
func runLRN(x *exec, op *canon.LRN) error {
	in := x.in(0)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if len(in.shape) < 3 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", in.shape)
	}
	if op.Size < 1 {
		return fmt.Errorf("size %d must be >= 1", op.Size)
	}
	n, ch := in.shape[0], in.shape[1]
	inner := numel(in.shape[2:])
	lo, hi := int((op.Size-1)/2), int(op.Size/2) // floor and ceil of (size-1)/2
	scale := float64(op.Alpha) / float64(op.Size)
	out := x.newF(in.shape)
	for b := 0; b < n; b++ {
		base := b * ch * inner
		for c := 0; c < ch; c++ {
			c0, c1 := max(0, c-lo), min(ch-1, c+hi)
			for i := 0; i < inner; i++ {
				var sum float64
				for k := c0; k <= c1; k++ {
					v := float64(in.f[base+k*inner+i])
					sum += v * v
				}
				v := float64(in.f[base+c*inner+i])
				out.f[base+c*inner+i] = float32(v / math.Pow(float64(op.Bias)+scale*sum, float64(op.Beta)))
			}
		}
	}
	x.set(0, out)
	return nil
}
