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

// runPoolF64 is MaxPool, AveragePool and LpPool on float64 data: each
// window in float64, its taps in the float32 path's order.
func runPoolF64(x *exec, in *tensor, a *poolAttrs) error {
	if a.max && x.nout() > 1 && x.s.out[1] >= 0 {
		return fmt.Errorf("MaxPool's Indices output is not computed for float64 data; drop the output or convert the model to float32")
	}
	g, err := poolGeom(in.shape, a)
	if err != nil {
		return err
	}
	y := x.newD(g.outShape(in.shape, in.shape[0], in.shape[1]))
	P, inP := g.outSize(), g.inSize()
	for p := range in.shape[0] * in.shape[1] {
		src, dst := in.d[p*inP:(p+1)*inP], y.d[p*P:(p+1)*P]
		i := 0
		for oz := range g.out[0] {
			for oy := range g.out[1] {
				for ox := range g.out[2] {
					dst[i] = poolPoint(g, a, src, oz, oy, ox)
					i++
				}
			}
		}
	}
	x.set(0, y)
	return nil
}
