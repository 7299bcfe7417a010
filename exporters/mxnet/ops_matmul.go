package mxnetexport

import (
	"fmt"
	"slices"
)

// stackedMatmul writes a MatMul of two stacks of matrices of rank above 3
// with the same static batch axes (attention's [batch, heads, L, E] @
// [batch, heads, E, S]): batch_dot over the stacks flattened to 3-D, then
// a Reshape back to the output's shape. MXNet's dot and batch_dot take no
// more than one batch axis.
func (e *exporter) stackedMatmul(a, b, out string) error {
	sa, okA := e.shape(a)
	sb, okB := e.shape(b)
	so, okO := e.shape(out)
	if !okA || !okB || !okO {
		return fmt.Errorf("a MatMul of rank-%d stacks needs static shapes", len(sa))
	}
	r := len(sa)
	if len(sb) != r || !slices.Equal(sa[:r-2], sb[:r-2]) {
		return fmt.Errorf("a MatMul of stacks is exported when both have the same batch axes (%v and %v)", sa, sb)
	}
	batch := int64(1)
	for _, d := range sa[:r-2] {
		batch *= d
	}
	in, err := e.values(a, b)
	if err != nil {
		return err
	}
	a3 := ref{e.add("Reshape", out+"_a3", map[string]string{"shape": tuple([]int64{batch, sa[r-2], sa[r-1]})}, 1, in[0]), 0}
	b3 := ref{e.add("Reshape", out+"_b3", map[string]string{"shape": tuple([]int64{batch, sb[r-2], sb[r-1]})}, 1, in[1]), 0}
	prod := ref{e.add("batch_dot", out+"_batch_dot", nil, 1, a3, b3), 0}
	return e.finish(out, e.add("Reshape", out, map[string]string{"shape": tuple(so)}, 1, prod))
}
