package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// runConvF64 is Conv on float64 data: a direct loop over outputs, kernel
// taps and input channels, summed in float64 (no vector kernels: float64
// models are checked, not served).
func runConvF64(x *exec, op *canon.Conv, xin *tensor) error {
	w, b := x.in(1), x.in(2)
	if !w.isF64() || (b != nil && !b.isF64()) {
		return fmt.Errorf("X is float64, and W and B must be float64 too (W is %s)", w.dt)
	}
	if len(xin.shape) < 3 || len(w.shape) != len(xin.shape) {
		return fmt.Errorf("X has shape %v and W %v: want (N, C, spatial...) and (M, C/group, kernel...)", xin.shape, w.shape)
	}
	g, err := newGeom3(xin.shape, toI64(w.shape[2:]), op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
	if err != nil {
		return err
	}
	if err := g.convOut(); err != nil {
		return err
	}
	groups := max(int(op.Group), 1)
	n, cin, cout := xin.shape[0], xin.shape[1], w.shape[0]
	if cin%groups != 0 || cout%groups != 0 || w.shape[1] != cin/groups {
		return fmt.Errorf("W has shape %v: want %d input channels per group (X has %d channels, group %d)", w.shape, cin/max(groups, 1), cin, groups)
	}
	if b != nil && len(b.d) != cout {
		return fmt.Errorf("bias has shape %v, want [%d]", b.shape, cout)
	}
	cing, coutg := cin/groups, cout/groups
	y := x.newD(g.outShape(xin.shape, n, cout))
	K, P, inP := g.kernelSize(), g.outSize(), g.inSize()
	for img := range n {
		for m := range cout {
			grp := m / coutg
			bias := 0.0
			if b != nil {
				bias = b.d[m]
			}
			dst := y.d[(img*cout+m)*P : (img*cout+m+1)*P]
			for o0 := range g.out[0] {
				for o1 := range g.out[1] {
					for o2 := range g.out[2] {
						s := bias
						for c := range cing {
							src := xin.d[(img*cin+grp*cing+c)*inP:]
							wk := w.d[(m*cing+c)*K:]
							for k0 := range g.k[0] {
								i0 := o0*g.s[0] - g.pb[0] + k0*g.d[0]
								if i0 < 0 || i0 >= g.in[0] {
									continue
								}
								for k1 := range g.k[1] {
									i1 := o1*g.s[1] - g.pb[1] + k1*g.d[1]
									if i1 < 0 || i1 >= g.in[1] {
										continue
									}
									for k2 := range g.k[2] {
										i2 := o2*g.s[2] - g.pb[2] + k2*g.d[2]
										if i2 < 0 || i2 >= g.in[2] {
											continue
										}
										s += src[(i0*g.in[1]+i1)*g.in[2]+i2] * wk[(k0*g.k[1]+k1)*g.k[2]+k2]
									}
								}
							}
						}
						dst[(o0*g.out[1]+o1)*g.out[2]+o2] = s
					}
				}
			}
		}
	}
	x.set(0, y)
	return nil
}
