package torchscript

import "github.com/modelbridge/modelbridge/canon"

// batchNormBatchStats is batch_norm with training=True: each channel is
// normalized by the mean and biased variance over the batch and spatial
// axes, then, as PyTorch applies it, y = x·α + β with α = w/√(var + eps)
// and β = b − mean·α.
func batchNormBatchStats(c *opCall, x *tensorVal, eps float64) (value, error) {
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if r < 2 {
		return nil, c.errf("input has rank %d; batch norm needs (N, C, ...)", r)
	}
	axes := []int64{0}
	for a := 2; a < r; a++ {
		axes = append(axes, int64(a))
	}
	e := layerEmit{c}
	mean, err := e.op(&canon.Reduce{Fn: canon.ReduceMean, Axes: axes, KeepDims: true}, x)
	if err != nil {
		return nil, err
	}
	d, err := e.bin(canon.Sub, x, mean)
	if err != nil {
		return nil, err
	}
	sq, err := e.bin(canon.Mul, d, d)
	if err != nil {
		return nil, err
	}
	variance, err := e.op(&canon.Reduce{Fn: canon.ReduceMean, Axes: axes, KeepDims: true}, sq)
	if err != nil {
		return nil, err
	}
	ve, err := e.bin(canon.Add, variance, f32(eps))
	if err != nil {
		return nil, err
	}
	std, err := e.math(canon.MathSqrt, ve)
	if err != nil {
		return nil, err
	}
	alpha, err := e.bin(canon.Div, f32(1), std)
	if err != nil {
		return nil, err
	}
	channel := func(i int) (*tensorVal, error) {
		t, err := c.optTensor(i)
		if err != nil || t == nil {
			return nil, err
		}
		return e.op(&canon.Reshape{Shape: append([]int64{-1}, ones64(r-2)...)}, t)
	}
	w, err := channel(1)
	if err != nil {
		return nil, err
	}
	if w != nil {
		if alpha, err = e.bin(canon.Mul, alpha, w); err != nil {
			return nil, err
		}
	}
	shift, err := e.bin(canon.Mul, mean, alpha)
	if err != nil {
		return nil, err
	}
	b, err := channel(2)
	if err != nil {
		return nil, err
	}
	beta := f32(0)
	if b != nil {
		beta = b
	}
	if beta, err = e.bin(canon.Sub, beta, shift); err != nil {
		return nil, err
	}
	scaled, err := e.bin(canon.Mul, x, alpha)
	if err != nil {
		return nil, err
	}
	return e.bin(canon.Add, scaled, beta)
}
