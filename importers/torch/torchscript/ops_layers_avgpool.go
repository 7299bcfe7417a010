package torchscript

import "github.com/modelbridge/modelbridge/canon"

// avgPoolArgs are avg_pool{1,2,3}d's arguments: the window, whether padded
// positions count in the divisor, and divisor_override (0: none).
type avgPoolArgs struct {
	poolArgs
	includePad bool
	divisor    int64
}

// avgPoolAxis is one spatial axis of a torch average pool: the output
// size and each window's divisor, by PyTorch's rules.
type avgPoolAxis struct {
	out      int64
	counts   []int64
	floorOut int64
}

// torchAvgAxis follows PyTorch's avg_pool kernels: a window starts at
// o·stride − pad and ends at most at in + pad (its size with padding), or
// within [0, in) without; with ceil mode a window that would start in the
// right padding is dropped.
func torchAvgAxis(in, k, s, pad int64, ceil, includePad bool) avgPoolAxis {
	span := in + 2*pad - k
	out := span/s + 1
	a := avgPoolAxis{floorOut: out}
	if ceil {
		out = (span+s-1)/s + 1
		if (out-1)*s >= in+pad {
			out--
		}
	}
	a.out = out
	a.counts = make([]int64, out)
	for o := range out {
		start := o*s - pad
		end := min(start+k, in+pad)
		size := end - start
		if !includePad {
			size = min(end, in) - max(start, 0)
		}
		a.counts[o] = size
	}
	return a
}

// avgPool emits avg_pool for an (N, C, spatial...) input. When every
// window is whole and the divisor is the window's (or its unpadded part),
// that is the canonical AveragePool; otherwise (ceil mode's partial last
// window, divisor_override) the input is zero-padded to whole windows,
// averaged over the full kernel, and rescaled per output position by
// kernel size / PyTorch's divisor, a constant.
func avgPool(c *opCall, x *tensorVal, p *avgPoolArgs) (value, error) {
	nsp := len(p.kernel)
	shape, ok := c.b().info(x).StaticShape()
	if !ok {
		if p.ceil || p.divisor != 0 {
			return nil, c.errf("ceil_mode=True or divisor_override needs a known input size (--input-shape)")
		}
		op := &canon.AveragePool{Kernel: p.kernel, Strides: p.stride, Dilations: p.dil, PadsBegin: p.pads, PadsEnd: clone(p.pads), CountIncludePad: p.includePad}
		return c.b().emit1(c.scope, op, x)
	}
	if len(shape) != nsp+2 {
		return nil, c.errf("input has shape %v, want (N, C) or (C) and %d spatial axes", shape, nsp)
	}
	axes := make([]avgPoolAxis, nsp)
	whole := p.divisor == 0
	for i := range nsp {
		if p.stride[i] <= 0 || p.kernel[i] <= 0 || p.pads[i] < 0 || 2*p.pads[i] > p.kernel[i] {
			return nil, c.errf("kernel %v, stride %v and padding %v are not a valid pool (padding at most half the kernel)", p.kernel, p.stride, p.pads)
		}
		if shape[2+i]+2*p.pads[i] < p.kernel[i] {
			return nil, c.errf("the kernel %v is larger than the padded input %v", p.kernel, shape[2:])
		}
		axes[i] = torchAvgAxis(shape[2+i], p.kernel[i], p.stride[i], p.pads[i], p.ceil, p.includePad)
		whole = whole && axes[i].out == axes[i].floorOut
	}
	e := layerEmit{c}
	if whole {
		op := &canon.AveragePool{Kernel: p.kernel, Strides: p.stride, Dilations: p.dil, PadsBegin: p.pads, PadsEnd: clone(p.pads), CountIncludePad: p.includePad}
		return e.op(op, x)
	}
	begin, end := make([]int64, nsp+2), make([]int64, nsp+2)
	kernelSize := int64(1)
	factorShape := []int64{1, 1}
	for i, a := range axes {
		begin[2+i] = p.pads[i]
		end[2+i] = (a.out-1)*p.stride[i] + p.kernel[i] - shape[2+i] - p.pads[i]
		kernelSize *= p.kernel[i]
		factorShape = append(factorShape, a.out)
	}
	padded, err := e.op(&canon.Pad{Mode: canon.PadConstant, PadsBegin: begin, PadsEnd: end}, x)
	if err != nil {
		return nil, err
	}
	zeros := make([]int64, nsp)
	mean, err := e.op(&canon.AveragePool{Kernel: p.kernel, Strides: p.stride, Dilations: ones64(nsp), PadsBegin: zeros, PadsEnd: clone(zeros), CountIncludePad: true}, padded)
	if err != nil {
		return nil, err
	}
	n := int64(1)
	for _, a := range axes {
		n *= a.out
	}
	if err := c.b().a.fits("the average pool's divisors", 4*n); err != nil {
		return nil, c.errf("%v", err)
	}
	factor := make([]float32, n)
	idx := make([]int64, nsp)
	for f := range factor {
		div := p.divisor
		if div == 0 {
			div = 1
			for i, a := range axes {
				div *= a.counts[idx[i]]
			}
		}
		factor[f] = float32(float64(kernelSize) / float64(div))
		for i := nsp - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < axes[i].out {
				break
			}
			idx[i] = 0
		}
	}
	return e.bin(canon.Mul, mean, &tensorVal{konst: canon.NewFloat32Tensor("", factorShape, factor)})
}
