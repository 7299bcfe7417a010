package interp

import (
	"fmt"
	"math"
)

// runGlobalPoolF64 is GlobalAveragePool and GlobalMaxPool on float64 data:
// the mean or the max of each (n, c) plane, in float64.
func runGlobalPoolF64(x *exec, in *tensor, isMax bool) error {
	if len(in.shape) < 2 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", in.shape)
	}
	shape := append([]int{}, in.shape...)
	for i := 2; i < len(shape); i++ {
		shape[i] = 1
	}
	planes := in.shape[0] * in.shape[1]
	inner := numel(in.shape[2:])
	y := x.newD(shape)
	for p := range planes {
		plane := in.d[p*inner : (p+1)*inner]
		if isMax {
			m := math.Inf(-1)
			for _, v := range plane {
				m = max(m, v)
			}
			y.d[p] = m
			continue
		}
		var s float64
		for _, v := range plane {
			s += v
		}
		y.d[p] = s / float64(inner)
	}
	x.set(0, y)
	return nil
}
