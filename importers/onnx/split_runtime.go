package onnximport

import "github.com/modelbridge/modelbridge/canon"

// equalSplitAtRunTime splits input 0 into len(outs) parts along axis when
// the axis's size is known only at run time: the sizes are computed from
// the input's shape as ONNX defines them. From opset 18 they are chunks of
// ceil(size/n) with a smaller last one (Max(0, Min(chunk, size - i·chunk)));
// before, size/n each, and a size that n does not divide fails when the
// split runs (the sizes do not add up).
func (c *nodeCtx) equalSplitAtRunTime(axis int64, outs []string) error {
	n := int64(len(outs))
	i64 := func(suffix string, shape []int64, v ...int64) string {
		return c.chainAux(suffix, &canon.Constant{Value: canon.NewInt64Tensor("", shape, v)})
	}
	shape := c.chainAux("split_shape", canon.NewShapeOf(), c.in(0))
	size := c.chainAux("split_size", &canon.Gather{Axis: 0}, shape, i64("split_axis", []int64{}, axis))
	var sizes string
	if c.im.opset >= 18 {
		idx := make([]int64, n)
		for i := range idx {
			idx[i] = int64(i)
		}
		chunk := c.chainAux("split_chunk", &canon.Binary{Fn: canon.Div},
			c.chainAux("split_size_up", &canon.Binary{Fn: canon.Add}, size, i64("split_n_minus_1", []int64{}, n-1)),
			i64("split_n", []int64{}, n))
		left := c.chainAux("split_left", &canon.Binary{Fn: canon.Sub}, size,
			c.chainAux("split_offsets", &canon.Binary{Fn: canon.Mul}, i64("split_index", []int64{n}, idx...), chunk))
		sizes = c.chainAux("split_sizes", &canon.Variadic{Fn: canon.VarMax},
			c.chainAux("split_capped", &canon.Variadic{Fn: canon.VarMin}, chunk, left), i64("split_zero", []int64{}, 0))
	} else {
		part := c.chainAux("split_part", &canon.Binary{Fn: canon.Div}, size, i64("split_n", []int64{}, n))
		sizes = c.chainAux("split_sizes", &canon.Binary{Fn: canon.Add}, i64("split_zeros", []int64{n}, make([]int64, n)...), part)
	}
	if c.err != nil {
		return c.err
	}
	return c.emit(&canon.Split{Axis: axis}, []string{c.in(0), sizes}, outs)
}
