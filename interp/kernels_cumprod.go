package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The CumProd kernel: floats multiply in float64, integers in int64 and
// wrap to their dtype (a product modulo 2^64 truncates to the product
// modulo the dtype's width).

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"CumProd": computesF64(withOp(runCumProd)),
	})
}

func runCumProd(x *exec, op *canon.CumProd) error {
	in := x.in(0)
	axis := op.Axis
	if t := x.in(1); t != nil {
		if t.isFloating() || t.size() != 1 {
			return fmt.Errorf("axis input is %s%v, want one integer", t.dt, t.shape)
		}
		axis = t.i[0]
	}
	a, err := normAxis(axis, len(in.shape))
	if err != nil {
		return err
	}
	outer, n, inner := axisSplit(in.shape, a)
	out := x.newLike(in, append([]int{}, in.shape...))
	floating := in.isFloating()
	for o := range outer {
		for i := range inner {
			pf, pi := 1.0, int64(1)
			for s := range n {
				j := s
				if op.Reverse {
					j = n - 1 - s
				}
				p := o*n*inner + j*inner + i
				if floating {
					if op.Exclusive {
						out.setFl(p, pf)
						pf *= in.fl(p)
					} else {
						pf *= in.fl(p)
						out.setFl(p, pf)
					}
					continue
				}
				if op.Exclusive {
					out.i[p] = pi
					pi *= in.i[p]
				} else {
					pi *= in.i[p]
					out.i[p] = pi
				}
			}
		}
	}
	if !floating {
		wrapInts(in.dt, out.i)
	}
	x.set(0, out)
	return nil
}
