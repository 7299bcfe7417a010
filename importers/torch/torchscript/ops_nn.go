package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// opConvolution maps aten::_convolution(input, weight, bias, stride,
// padding, dilation, transposed, output_padding, groups, ...).
func opConvolution(c *opCall) (value, error) {
	if err := c.bind("input", "weight", "bias", "stride", "padding", "dilation", "transposed", "output_padding", "groups",
		"benchmark=False", "deterministic=False", "cudnn_enabled=True", "allow_tf32=True"); err != nil {
		return nil, err
	}
	transposed, err := c.bool(6)
	if err != nil {
		return nil, err
	}
	return convCommon(c, transposed, 3, 4, 5, 7, 8)
}

// opConvN maps torch.conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups).
func opConvN(c *opCall) (value, error) {
	if err := c.bind("input", "weight", "bias=None", "stride=1", "padding=0", "dilation=1", "groups=1"); err != nil {
		return nil, err
	}
	return convCommon(c, false, 3, 4, 5, -1, 6)
}

// opConvTransposeN maps torch.conv_transpose1d/2d/3d(input, weight, bias,
// stride, padding, output_padding, groups, dilation).
func opConvTransposeN(c *opCall) (value, error) {
	if err := c.bind("input", "weight", "bias=None", "stride=1", "padding=0", "output_padding=0", "groups=1", "dilation=1"); err != nil {
		return nil, err
	}
	return convCommon(c, true, 3, 4, 7, 5, 6)
}

// convCommon reads a convolution's arguments and emits it; an unbatched
// input (C, spatial...) gets a batch axis around the op, as torch adds one.
func convCommon(c *opCall, transposed bool, iStride, iPad, iDil, iOutPad, iGroups int) (value, error) {
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	w, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	wi := c.b().info(w)
	xi := c.b().info(x)
	if wi.RankKnown && xi.RankKnown && len(xi.Shape) == len(wi.Shape)-1 {
		return unbatched(c, x, func(xb *tensorVal) (value, error) {
			return convBatched(c, xb, w, transposed, iStride, iPad, iDil, iOutPad, iGroups)
		})
	}
	return convBatched(c, x, w, transposed, iStride, iPad, iDil, iOutPad, iGroups)
}

func convBatched(c *opCall, x, w *tensorVal, transposed bool, iStride, iPad, iDil, iOutPad, iGroups int) (value, error) {
	bias, err := c.optTensor(2)
	if err != nil {
		return nil, err
	}
	wi := c.b().info(w)
	if !wi.RankKnown || len(wi.Shape) < 3 {
		return nil, c.errf("weight must have a known rank of at least 3")
	}
	nsp := len(wi.Shape) - 2
	stride, err := c.ints(iStride, nsp)
	if err != nil {
		return nil, err
	}
	dil, err := c.ints(iDil, nsp)
	if err != nil {
		return nil, err
	}
	groups, err := c.int(iGroups)
	if err != nil {
		return nil, err
	}
	var pads []int64
	if mode, ok := c.bound[iPad].(string); ok {
		// conv2d(padding="same"/"valid"), torch >= 1.9.
		pads = make([]int64, nsp)
		switch mode {
		case "valid":
		case "same":
			ws, ok := wi.StaticShape()
			if !ok {
				return nil, c.errf("padding='same' needs the kernel size")
			}
			begin := make([]int64, nsp)
			end := make([]int64, nsp)
			for i := range nsp {
				total := dil[i] * (ws[2+i] - 1)
				begin[i] = total / 2
				end[i] = total - begin[i]
			}
			return c.b().emit1(c.scope, &canon.Conv{Strides: stride, Dilations: dil, PadsBegin: begin, PadsEnd: end, Group: groups}, x, w, bias)
		default:
			return nil, c.errf("padding=%q is not a padding mode torch knows", mode)
		}
	} else if pads, err = c.ints(iPad, nsp); err != nil {
		return nil, err
	}
	if transposed {
		outPad := make([]int64, nsp)
		if iOutPad >= 0 {
			if outPad, err = c.ints(iOutPad, nsp); err != nil {
				return nil, err
			}
		}
		op := &canon.ConvTranspose{Strides: stride, Dilations: dil, PadsBegin: pads, PadsEnd: clone(pads), OutputPadding: outPad, Group: groups}
		return c.b().emit1(c.scope, op, x, w, bias)
	}
	if iOutPad >= 0 {
		// A non-transposed _convolution ignores output_padding.
		if _, err := c.ints(iOutPad, 0); err != nil {
			return nil, err
		}
	}
	op := &canon.Conv{Strides: stride, Dilations: dil, PadsBegin: pads, PadsEnd: clone(pads), Group: groups}
	return c.b().emit1(c.scope, op, x, w, bias)
}

func clone(s []int64) []int64 { return append([]int64{}, s...) }

// opBatchNorm maps torch.batch_norm(input, weight, bias, running_mean,
// running_var, training, momentum, eps, cudnn_enabled).
func opBatchNorm(c *opCall) (value, error) {
	x, err := c.bindInput("input", "weight", "bias", "running_mean", "running_var", "training", "momentum", "eps", "cudnn_enabled=True")
	if err != nil {
		return nil, err
	}
	training, err := c.bool(5)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(7)
	if err != nil {
		return nil, err
	}
	if training {
		// Training mode (or track_running_stats=False) normalizes by the
		// batch's own statistics (ops_layers_norm.go).
		return batchNormBatchStats(c, x, eps)
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
		return nil, c.errf("batch norm in eval mode without running statistics: PyTorch itself refuses this call")
	}
	mi := c.b().info(mean)
	ch, ok := mi.StaticShape()
	if !ok || len(ch) != 1 {
		return nil, c.errf("running_mean must be a 1-D tensor of known size")
	}
	scale, err := c.optTensor(1)
	if err != nil {
		return nil, err
	}
	shift, err := c.optTensor(2)
	if err != nil {
		return nil, err
	}
	if scale == nil || shift == nil {
		// Both are made below; check the size first.
		if err := c.b().a.fits("the unit scale and zero shift", 8*ch[0]); err != nil {
			return nil, c.errf("%v", err)
		}
	}
	if scale == nil {
		scale = &tensorVal{konst: filled(ch[0], 1)}
	}
	if shift == nil {
		shift = &tensorVal{konst: filled(ch[0], 0)}
	}
	return c.b().emit1(c.scope, &canon.BatchNorm{Epsilon: float32(eps)}, x, scale, shift, mean, variance)
}

func filled(n int64, v float32) *canon.Tensor {
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = v
	}
	return canon.NewFloat32Tensor("", []int64{n}, vals)
}

func unaryOp(fn canon.UnaryFn) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("input"); err != nil {
			return nil, err
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.Unary{Fn: fn}, x)
	}
}

func opHardtanh(c *opCall) (value, error) {
	if err := c.bind("input", "min_val=-1", "max_val=1"); err != nil {
		return nil, err
	}
	return clipOp(c, 1, 2)
}

func opRelu6(c *opCall) (value, error) {
	if err := c.bind("input", "min_val=0", "max_val=6"); err != nil {
		return nil, err
	}
	return clipOp(c, 1, 2)
}

func opClamp(c *opCall) (value, error) {
	if err := c.bind("input", "min=None", "max=None"); err != nil {
		return nil, err
	}
	return clipOp(c, 1, 2)
}

func clipOp(c *opCall, iMin, iMax int) (value, error) {
	if hasTensorBound(c, iMin) || hasTensorBound(c, iMax) {
		return clampTensors(c, iMin, iMax)
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	op := canon.NewClip()
	if !c.isNone(iMin) {
		v, err := c.float(iMin)
		if err != nil {
			return nil, err
		}
		op.Min = float32(v)
	}
	if !c.isNone(iMax) {
		v, err := c.float(iMax)
		if err != nil {
			return nil, err
		}
		op.Max = float32(v)
	}
	return c.b().emit1(c.scope, op, x)
}

func opHardsigmoid(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.HardSigmoid{Alpha: 1.0 / 6, Beta: 0.5}, x)
}

// opSilu is x * sigmoid(x).
func opSilu(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	s, err := c.b().emit1(c.scope, &canon.Unary{Fn: canon.Sigmoid}, x)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Binary{Fn: canon.Mul}, x, s)
}

func opLeakyRelu(c *opCall) (value, error) {
	x, err := c.bindInput("input", "negative_slope=0.01")
	if err != nil {
		return nil, err
	}
	a, err := c.float(1)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.LeakyRelu{Alpha: float32(a)}, x)
}

func opSoftmax(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "dtype=None")
	if err != nil {
		return nil, err
	}
	if x, err = reduceDType(c, x, 2); err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if r, err := c.rankOf(x, "the input"); err == nil {
		if d, err = c.axis(d, r); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Softmax{Axis: d}, x)
}

// opLinear maps torch.linear(input, weight, bias): Linear when the input is
// 2-D, otherwise MatMul with the transposed weight plus the bias.
func opLinear(c *opCall) (value, error) {
	x, err := c.bindInput("input", "weight", "bias=None")
	if err != nil {
		return nil, err
	}
	w, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	bias, err := c.optTensor(2)
	if err != nil {
		return nil, err
	}
	xi := c.b().info(x)
	if xi.RankKnown && len(xi.Shape) == 2 && w.name == "" {
		return c.b().emit1(c.scope, &canon.Linear{Alpha: 1, Beta: 1}, x, w, bias)
	}
	wt, err := c.b().emit1(c.scope, &canon.Transpose{Perm: []int64{1, 0}}, w)
	if err != nil {
		return nil, err
	}
	y, err := c.b().emit1(c.scope, &canon.MatMul{}, x, wt)
	if err != nil || bias == nil {
		return y, err
	}
	return c.b().emit1(c.scope, &canon.Binary{Fn: canon.Add}, y, bias)
}

// opAddmm maps torch.addmm(self, mat1, mat2, beta, alpha) = beta*self + alpha*mat1@mat2.
func opAddmm(c *opCall) (value, error) {
	if err := c.bind("input", "mat1", "mat2", "beta=1", "alpha=1"); err != nil {
		return nil, err
	}
	bias, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	a, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	m, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	beta, err := c.float(3)
	if err != nil {
		return nil, err
	}
	alpha, err := c.float(4)
	if err != nil {
		return nil, err
	}
	y, err := c.b().emit1(c.scope, &canon.MatMul{}, a, m)
	if err != nil {
		return nil, err
	}
	if alpha != 1 {
		if y, err = c.b().emit1(c.scope, &canon.Binary{Fn: canon.Mul}, y, &tensorVal{konst: scalarTensor(alpha, canon.Float32)}); err != nil {
			return nil, err
		}
	}
	if beta == 0 {
		return y, nil
	}
	if beta != 1 {
		if bias, err = c.b().emit1(c.scope, &canon.Binary{Fn: canon.Mul}, bias, &tensorVal{konst: scalarTensor(beta, canon.Float32)}); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Binary{Fn: canon.Add}, y, bias)
}

func opMatmul(c *opCall) (value, error) {
	if err := c.bind("input", "other"); err != nil {
		return nil, err
	}
	a, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	b, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.MatMul{}, a, b)
}

func opDropout(c *opCall) (value, error) {
	x, err := c.bindInput("input", "p=0.5", "train=False")
	if err != nil {
		return nil, err
	}
	train, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	p, err := c.float(1)
	if err != nil {
		return nil, err
	}
	// Dropout with p = 0 keeps every element even in training mode (Swin's
	// attention calls it so whatever the module's mode).
	if train && p != 0 {
		if isPlainDropout(c) {
			return dropoutTraining(c, x, p)
		}
		return nil, c.errf("dropout in training mode is random and only torch.dropout's elementwise mask is read; call model.eval() before saving")
	}
	return x, nil
}
