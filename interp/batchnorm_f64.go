package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// runBatchNormF64 is inference BatchNormalization on float64 data:
// (x - mean) / sqrt(var + epsilon) · scale + bias per channel, in float64
// (the statistics may be float32, as opset 15 allows).
func runBatchNormF64(x *exec, in *tensor, op *canon.BatchNorm) error {
	if len(in.shape) < 2 {
		return fmt.Errorf("X has shape %v, want rank >= 2 (N, C, ...)", in.shape)
	}
	c := in.shape[1]
	names := [...]string{"", "scale", "bias", "mean", "var"}
	var ps [5]*tensor
	for k := 1; k <= 4; k++ {
		t := x.in(k)
		if err := needFloating(t, names[k]); err != nil {
			return err
		}
		if numel(t.shape) != c {
			return fmt.Errorf("%s has shape %v, want [%d] (channels of X %v)", names[k], t.shape, c, in.shape)
		}
		ps[k] = t
	}
	eps := float64(op.Epsilon)
	y := x.newD(in.shape)
	inner := numel(in.shape[2:])
	for nc := 0; nc < in.shape[0]*c; nc++ {
		ch := nc % c
		mean, inv := ps[3].fl(ch), 1/math.Sqrt(ps[4].fl(ch)+eps)
		scale, bias := ps[1].fl(ch), ps[2].fl(ch)
		src, dst := in.d[nc*inner:(nc+1)*inner], y.d[nc*inner:(nc+1)*inner]
		for i, v := range src {
			dst[i] = (v-mean)*inv*scale + bias
		}
	}
	x.set(0, y)
	return nil
}
