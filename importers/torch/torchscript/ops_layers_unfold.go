package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Convolutions with a padding mode (padding="same"/"valid") and
// nn.Unfold's im2col.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch._convolution_mode": entry(opConvN, "Conv", "Unsqueeze", "Squeeze"),
		"torch.im2col":            entry(opIm2Col, "Pad", "Slice", "Unsqueeze", "Concat", "Reshape", "Squeeze"),
	})
}

// opIm2Col maps aten::im2col(self, kernel_size, dilation, padding, stride)
// (F.unfold): each kernel offset's strided slice of the zero-padded input
// is one block entry; stacked after the channel axis and flattened they
// are PyTorch's (N, C·kh·kw, L) columns, copied exactly.
func opIm2Col(c *opCall) (value, error) {
	x, err := c.bindInput("input", "kernel_size", "dilation", "padding", "stride")
	if err != nil {
		return nil, err
	}
	var v [4][]int64
	for i := range v {
		if v[i], err = c.ints(1+i, 2); err != nil {
			return nil, err
		}
	}
	if isUnbatched(c, x, 2) {
		return unbatched(c, x, func(xb *tensorVal) (value, error) { return im2col(c, xb, v[0], v[1], v[2], v[3]) })
	}
	return im2col(c, x, v[0], v[1], v[2], v[3])
}

func im2col(c *opCall, x *tensorVal, kernel, dil, pads, stride []int64) (value, error) {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) != 4 {
		return nil, c.errf("input has shape %v; unfold takes (N, C, H, W) or (C, H, W)", shape)
	}
	out := make([]int64, 2)
	for i := range 2 {
		if kernel[i] <= 0 || dil[i] <= 0 || stride[i] <= 0 || pads[i] < 0 {
			return nil, c.errf("kernel %v, dilation %v, padding %v and stride %v must be positive (padding non-negative)", kernel, dil, pads, stride)
		}
		span := shape[2+i] + 2*pads[i] - dil[i]*(kernel[i]-1) - 1
		if span < 0 {
			return nil, c.errf("the kernel %v with dilation %v does not fit the padded input %v", kernel, dil, shape[2:])
		}
		out[i] = span/stride[i] + 1
	}
	blocks := kernel[0] * kernel[1]
	if err := c.b().a.fits("the unfolded columns", 4*shape[0]*shape[1]*blocks*out[0]*out[1]); err != nil {
		return nil, c.errf("%v", err)
	}
	e := layerEmit{c}
	padded := x
	if pads[0] != 0 || pads[1] != 0 {
		p := []int64{0, 0, pads[0], pads[1]}
		if padded, err = e.op(&canon.Pad{Mode: canon.PadConstant, PadsBegin: p, PadsEnd: clone(p)}, x); err != nil {
			return nil, err
		}
	}
	parts := make([]*tensorVal, 0, blocks)
	for i := range kernel[0] {
		for j := range kernel[1] {
			starts := []int64{i * dil[0], j * dil[1]}
			ends := []int64{starts[0] + (out[0]-1)*stride[0] + 1, starts[1] + (out[1]-1)*stride[1] + 1}
			s, err := e.op(&canon.Slice{Starts: starts, Ends: ends, Axes: []int64{2, 3}, Steps: clone(stride)}, padded)
			if err != nil {
				return nil, err
			}
			u, err := e.op(&canon.Unsqueeze{Axes: []int64{2}}, s)
			if err != nil {
				return nil, err
			}
			parts = append(parts, u)
		}
	}
	stacked := parts[0]
	if len(parts) > 1 {
		if stacked, err = e.op(&canon.Concat{Axis: 2}, parts...); err != nil {
			return nil, err
		}
	}
	return e.op(&canon.Reshape{Shape: []int64{shape[0], shape[1] * blocks, out[0] * out[1]}, AllowZero: true}, stacked)
}
