package mxnetexport

import (
	"fmt"
	"strconv"
)

// leftMatmul writes a MatMul of a matrix a (m, k) by a stack b (..., k, n),
// which NumPy broadcasts over b's batch axes (adaptive pooling and
// resampling read from TorchScript apply a weight matrix this way to an
// image's rows). MXNet's dot contracts its first input's last axis, so the
// product is turned around: (bᵀ · aᵀ)ᵀ over b's last two axes.
func (e *exporter) leftMatmul(a, b, out string, rb int) error {
	if rb < 3 {
		return fmt.Errorf("a matrix times a stack needs a stack of rank 3 or more, not %d", rb)
	}
	in, err := e.values(a, b)
	if err != nil {
		return err
	}
	swap := "("
	for i := 0; i < rb; i++ {
		j := i
		switch i {
		case rb - 2:
			j = rb - 1
		case rb - 1:
			j = rb - 2
		}
		if i > 0 {
			swap += ", "
		}
		swap += strconv.Itoa(j)
	}
	swap += ")"
	bt := ref{e.add("transpose", out+"_bT", map[string]string{"axes": swap}, 1, in[1]), 0}
	at := ref{e.add("transpose", out+"_aT", map[string]string{"axes": "(1, 0)"}, 1, in[0]), 0}
	prod := ref{e.add("dot", out+"_dot", nil, 1, bt, at), 0}
	return e.finish(out, e.add("transpose", out, map[string]string{"axes": swap}, 1, prod))
}
