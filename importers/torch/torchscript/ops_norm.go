package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The normalization family and the pooling ops with indices. A missing
// weight is a constant of ones, a missing bias is left out (or zeros where
// the canonical op needs one).

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.layer_norm":              entry(opLayerNorm, "LayerNormalization"),
		"torch.native_layer_norm":       entry(opNativeLayerNorm, "LayerNormalization"),
		"torch.group_norm":              entry(opGroupNorm, "GroupNormalization"),
		"torch.instance_norm":           entry(opInstanceNorm, "InstanceNormalization", "BatchNormalization"),
		"torch.rms_norm":                entry(opRMSNorm, "RMSNormalization"),
		"torch.max_pool1d_with_indices": entry(opMaxPoolIndices(1), "MaxPool", "Sub", "Unsqueeze", "Squeeze"),
		"torch.max_pool2d_with_indices": entry(opMaxPoolIndices(2), "MaxPool", "Sub", "Unsqueeze", "Squeeze"),
		"torch.max_pool3d_with_indices": entry(opMaxPoolIndices(3), "MaxPool", "Sub", "Unsqueeze", "Squeeze"),
		"torch.max_unpool2d":            entry(opMaxUnpool(2), "MaxUnpool", "Add", "Unsqueeze", "Squeeze"),
		"torch.max_unpool3d":            entry(opMaxUnpool(3), "MaxUnpool", "Add", "Unsqueeze", "Squeeze"),
		// F.normalize traces into norm, clamp_min, expand_as and div:
		// x / max(norm, eps), read exactly as those ops.
		"torch.clamp_min": entry(opClampOne(true), "Clip", "Max", "Cast", "Reshape"),
		"torch.clamp_max": entry(opClampOne(false), "Clip", "Min", "Cast", "Reshape"),
	})
	optable.Add(&opLacks, map[string]string{
		"LpNormalization":           "F.normalize divides by max(norm, eps), not by the norm: it is read exactly as the norm, clamp_min, expand_as and div it traces into",
		"MeanVarianceNormalization": "PyTorch has no mean-variance normalization op",
		"LpPool":                    "F.lp_pool1d/2d trace into pow, avg_pool, sign, relu and mul (and pow x^p, not |x|^p), not one call",
		"GlobalLpPool":              "PyTorch has no global Lp pooling op",
	})
}

// filledLike is a constant of shape filled with v, after checking the size.
func filledLike(c *opCall, shape []int64, v float32) (*tensorVal, error) {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	if err := c.b().a.fits("a constant weight", 4*n); err != nil {
		return nil, c.errf("%v", err)
	}
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = v
	}
	return &tensorVal{konst: canon.NewFloat32Tensor("", append([]int64{}, shape...), vals)}, nil
}

// layerNorm emits a LayerNormalization over the trailing len(shape) axes
// with nOut outputs.
func layerNorm(c *opCall, x *tensorVal, shape []int64, iW, iB int, eps float64, nOut int) ([]*tensorVal, error) {
	w, err := c.optTensor(iW)
	if err != nil {
		return nil, err
	}
	b, err := c.optTensor(iB)
	if err != nil {
		return nil, err
	}
	if w == nil {
		if w, err = filledLike(c, shape, 1); err != nil {
			return nil, err
		}
	}
	if len(shape) == 0 {
		return nil, c.errf("normalized_shape is empty")
	}
	op := &canon.LayerNorm{Axis: -int64(len(shape)), Epsilon: float32(eps), Stash: canon.Float32}
	return c.b().emit(c.scope, op, []*tensorVal{x, w, b}, nOut)
}

// opLayerNorm maps torch.layer_norm(input, normalized_shape, weight, bias,
// eps, cudnn_enable).
func opLayerNorm(c *opCall) (value, error) {
	x, err := c.bindInput("input", "normalized_shape", "weight=None", "bias=None", "eps=1e-05", "cudnn_enable=True")
	if err != nil {
		return nil, err
	}
	shape, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(4)
	if err != nil {
		return nil, err
	}
	outs, err := layerNorm(c, x, shape, 2, 3, eps, 1)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// opNativeLayerNorm maps torch.native_layer_norm(input, normalized_shape,
// weight, bias, eps): the output, the mean and the reciprocal standard
// deviation, the statistics shaped like ONNX's Mean and InvStdDev.
func opNativeLayerNorm(c *opCall) (value, error) {
	x, err := c.bindInput("input", "normalized_shape", "weight", "bias", "eps")
	if err != nil {
		return nil, err
	}
	shape, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(4)
	if err != nil {
		return nil, err
	}
	outs, err := layerNorm(c, x, shape, 2, 3, eps, 3)
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{outs[0], outs[1], outs[2]}}, nil
}

// channelVectors returns the weight and bias of a per-channel op, ones and
// zeros where absent.
func channelVectors(c *opCall, x *tensorVal, iW, iB int) (w, b *tensorVal, err error) {
	if w, err = c.optTensor(iW); err != nil {
		return nil, nil, err
	}
	if b, err = c.optTensor(iB); err != nil {
		return nil, nil, err
	}
	if w != nil && b != nil {
		return w, b, nil
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, nil, err
	}
	if len(xs) < 2 {
		return nil, nil, c.errf("input has shape %v, want (N, C, ...)", xs)
	}
	if w == nil {
		if w, err = filledLike(c, xs[1:2], 1); err != nil {
			return nil, nil, err
		}
	}
	if b == nil {
		if b, err = filledLike(c, xs[1:2], 0); err != nil {
			return nil, nil, err
		}
	}
	return w, b, nil
}

// opGroupNorm maps torch.group_norm(input, num_groups, weight, bias, eps,
// cudnn_enabled).
func opGroupNorm(c *opCall) (value, error) {
	x, err := c.bindInput("input", "num_groups", "weight=None", "bias=None", "eps=1e-05", "cudnn_enabled=True")
	if err != nil {
		return nil, err
	}
	g, err := c.int(1)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(4)
	if err != nil {
		return nil, err
	}
	w, b, err := channelVectors(c, x, 2, 3)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.GroupNorm{NumGroups: g, Epsilon: float32(eps), Stash: canon.Float32}, x, w, b)
}

// opInstanceNorm maps torch.instance_norm(input, weight, bias, running_mean,
// running_var, use_input_stats, momentum, eps, cudnn_enabled): with the
// input's own statistics an InstanceNormalization, with running ones (an
// InstanceNorm that tracks them, in eval mode) a BatchNormalization.
func opInstanceNorm(c *opCall) (value, error) {
	x, err := c.bindInput("input", "weight", "bias", "running_mean", "running_var", "use_input_stats", "momentum", "eps", "cudnn_enabled")
	if err != nil {
		return nil, err
	}
	own, err := c.bool(5)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(7)
	if err != nil {
		return nil, err
	}
	w, b, err := channelVectors(c, x, 1, 2)
	if err != nil {
		return nil, err
	}
	if own {
		return c.b().emit1(c.scope, &canon.InstanceNorm{Epsilon: float32(eps)}, x, w, b)
	}
	mean, err := c.optTensor(3)
	if err != nil {
		return nil, err
	}
	variance, err := c.optTensor(4)
	if err != nil {
		return nil, err
	}
	if mean == nil || variance == nil {
		return nil, c.errf("use_input_stats=False without running statistics")
	}
	return c.b().emit1(c.scope, &canon.BatchNorm{Epsilon: float32(eps)}, x, w, b, mean, variance)
}

// opRMSNorm maps torch.rms_norm(input, normalized_shape, weight, eps); eps
// None is the input dtype's machine epsilon, as torch takes it.
func opRMSNorm(c *opCall) (value, error) {
	x, err := c.bindInput("input", "normalized_shape", "weight=None", "eps=None")
	if err != nil {
		return nil, err
	}
	shape, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		return nil, c.errf("normalized_shape is empty")
	}
	eps := float64(1.1920928955078125e-07) // torch.finfo(torch.float32).eps
	if !c.isNone(3) {
		if eps, err = c.float(3); err != nil {
			return nil, err
		}
	} else if dt := c.b().info(x).DType; dt != canon.Float32 && dt != canon.Undefined {
		return nil, c.errf("eps=None on %s input: give eps explicitly", dt)
	}
	w, err := c.optTensor(2)
	if err != nil {
		return nil, err
	}
	if w == nil {
		if w, err = filledLike(c, shape, 1); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.RMSNorm{Axis: -int64(len(shape)), Epsilon: float32(eps), Stash: canon.Float32}, x, w)
}

// planeOffsets is a constant (N, C, 1...) i64 tensor holding each plane's
// first flat offset in a tensor of shape.
func planeOffsets(c *opCall, shape []int64) (*tensorVal, error) {
	plane := int64(1)
	for _, d := range shape[2:] {
		plane *= d
	}
	n := shape[0] * shape[1]
	if err := c.b().a.fits("the plane offsets", 8*n); err != nil {
		return nil, c.errf("%v", err)
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i) * plane
	}
	dims := []int64{shape[0], shape[1]}
	for range shape[2:] {
		dims = append(dims, 1)
	}
	return &tensorVal{konst: canon.NewInt64Tensor("", dims, v)}, nil
}

// opMaxPoolIndices maps torch.max_poolNd_with_indices(input, kernel_size,
// stride, padding, dilation, ceil_mode): torch counts indices within each
// (n, c) plane, the canonical MaxPool over the whole input, so the plane
// offsets are subtracted.
func opMaxPoolIndices(nsp int) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("input", "kernel_size", "stride=[]", "padding=0", "dilation=1", "ceil_mode=False"); err != nil {
			return nil, err
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		p, err := readPool(c, nsp, 1, 2, 3, 4, 5)
		if err != nil {
			return nil, err
		}
		if isUnbatched(c, x, nsp) {
			return unbatched(c, x, func(xb *tensorVal) (value, error) { return maxPoolIndices(c, xb, p, nsp) })
		}
		return maxPoolIndices(c, x, p, nsp)
	}
}

func maxPoolIndices(c *opCall, x *tensorVal, p *poolArgs, nsp int) (value, error) {
	ceil, err := resolveCeil(c, x, p)
	if err != nil {
		return nil, err
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(xs) != nsp+2 {
		return nil, c.errf("input has shape %v, want (N, C) and %d spatial axes", xs, nsp)
	}
	op := &canon.MaxPool{Kernel: p.kernel, Strides: p.stride, Dilations: p.dil, PadsBegin: p.pads, PadsEnd: clone(p.pads), CeilMode: ceil}
	outs, err := c.b().emit(c.scope, op, []*tensorVal{x}, 2)
	if err != nil {
		return nil, err
	}
	offs, err := planeOffsets(c, xs)
	if err != nil {
		return nil, err
	}
	local, err := c.b().emit1(c.scope, &canon.Binary{Fn: canon.Sub}, outs[1], offs)
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{outs[0], local}}, nil
}

// opMaxUnpool maps torch.max_unpool2d(input, indices, output_size) and
// max_unpool3d(input, indices, output_size, stride, padding): the
// per-plane indices become flat ones by adding the output planes' offsets.
func opMaxUnpool(nsp int) opHandler {
	return func(c *opCall) (value, error) {
		schema := []string{"input", "indices", "output_size"}
		if nsp == 3 {
			schema = append(schema, "stride", "padding")
		}
		if err := c.bind(schema...); err != nil {
			return nil, err
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		idx, err := c.tensor(1)
		if err != nil {
			return nil, err
		}
		if dt := c.b().info(idx).DType; dt != canon.Int64 {
			return nil, c.errf("the indices are %s; max_unpool takes the int64 indices max_pool returned (a graph input of indices must be declared int64)", dt)
		}
		size, err := c.ints(2, nsp)
		if err != nil {
			return nil, err
		}
		if isUnbatched(c, x, nsp) {
			// Unbatched (C, spatial...): the indices get the batch axis too.
			ib, err := c.b().emit1(c.scope, &canon.Unsqueeze{Axes: []int64{0}}, idx)
			if err != nil {
				return nil, err
			}
			return unbatched(c, x, func(xb *tensorVal) (value, error) { return maxUnpool(c, xb, ib, size, nsp) })
		}
		return maxUnpool(c, x, idx, size, nsp)
	}
}

func maxUnpool(c *opCall, x, idx *tensorVal, size []int64, nsp int) (value, error) {
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(xs) != nsp+2 {
		return nil, c.errf("input has shape %v, want (N, C) and %d spatial axes", xs, nsp)
	}
	out := append([]int64{xs[0], xs[1]}, size...)
	offs, err := planeOffsets(c, out)
	if err != nil {
		return nil, err
	}
	flat, err := c.b().emit1(c.scope, &canon.Binary{Fn: canon.Add}, idx, offs)
	if err != nil {
		return nil, err
	}
	zeros := make([]int64, nsp)
	op := &canon.MaxUnpool{Kernel: ones64(nsp), Strides: ones64(nsp), PadsBegin: zeros, PadsEnd: clone(zeros), OutputShape: out}
	return c.b().emit1(c.scope, op, x, flat)
}

func ones64(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// opClampOne maps torch.clamp_min(input, min) and clamp_max(input, max).
func opClampOne(isMin bool) opHandler {
	return func(c *opCall) (value, error) {
		name := map[bool]string{true: "min", false: "max"}[isMin]
		x, err := c.bindInput("input", name)
		if err != nil {
			return nil, err
		}
		if hasTensorBound(c, 1) {
			if isMin {
				return clampTensors(c, 1, -1)
			}
			return clampTensors(c, -1, 1)
		}
		v, err := c.float(1)
		if err != nil {
			return nil, err
		}
		op := canon.NewClip()
		if isMin {
			op.Min = float32(v)
		} else {
			op.Max = float32(v)
		}
		return c.b().emit1(c.scope, op, x)
	}
}
