package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
)

// weightMaker creates a rewritten f32 weight. srcs and tag identify its
// content (the tensors it is computed from and how), so that the search can
// digest a weight without computing it; fill computes the values.
type weightMaker func(name string, shape []int64, layout canon.Layout, srcs []*canon.Tensor, tag string, fill func() ([]float64, error)) (*canon.Tensor, error)

// eagerWeight computes the weight now (passes).
func eagerWeight(name string, shape []int64, layout canon.Layout, _ []*canon.Tensor, _ string, fill func() ([]float64, error)) (*canon.Tensor, error) {
	v, err := fill()
	if err != nil {
		return nil, err
	}
	return f32Tensor(name, shape, layout, v), nil
}

// shapeOnlyWeight makes a tensor with no data, for cost estimates that need
// only shapes.
func shapeOnlyWeight(name string, shape []int64, layout canon.Layout, _ []*canon.Tensor, _ string, _ func() ([]float64, error)) (*canon.Tensor, error) {
	return &canon.Tensor{Name: name, DType: canon.Float32, Shape: append([]int64(nil), shape...), Layout: layout}, nil
}
