package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// poolArgs are a pooling call's window parameters, with torch's defaults
// resolved (an empty stride means the kernel size).
type poolArgs struct {
	kernel, stride, pads, dil []int64
	ceil                      bool
}

func readPool(c *opCall, nsp, iKernel, iStride, iPad, iDil, iCeil int) (*poolArgs, error) {
	p := &poolArgs{}
	var err error
	if p.kernel, err = c.ints(iKernel, nsp); err != nil {
		return nil, err
	}
	if l, ok := c.bound[iStride].(*listVal); ok && len(l.items) == 0 {
		p.stride = clone(p.kernel)
	} else if c.isNone(iStride) {
		p.stride = clone(p.kernel)
	} else if p.stride, err = c.ints(iStride, nsp); err != nil {
		return nil, err
	}
	if p.pads, err = c.ints(iPad, nsp); err != nil {
		return nil, err
	}
	p.dil = make([]int64, nsp)
	for i := range p.dil {
		p.dil[i] = 1
	}
	if iDil >= 0 {
		if p.dil, err = c.ints(iDil, nsp); err != nil {
			return nil, err
		}
	}
	if p.ceil, err = c.bool(iCeil); err != nil {
		return nil, err
	}
	return p, nil
}

// resolveCeil reconciles torch's ceil mode with the canonical (ONNX) one.
// torch drops a last window that would start inside the right padding;
// when that happens for the known input size, the floor-mode size is the
// torch size whenever they agree, otherwise the model is refused.
func resolveCeil(c *opCall, x *tensorVal, p *poolArgs) (bool, error) {
	if !p.ceil {
		return false, nil
	}
	shape, ok := c.b().info(x).StaticShape()
	if !ok {
		return true, nil
	}
	if len(shape) != len(p.kernel)+2 {
		return false, c.errf("input has rank %d, want %d", len(shape), len(p.kernel)+2)
	}
	canonCeilOK := true
	floorSame := true
	for i := range p.kernel {
		in := shape[2+i]
		span := in + 2*p.pads[i] - p.dil[i]*(p.kernel[i]-1) - 1
		if span < 0 || p.stride[i] <= 0 {
			return true, nil // let shape inference report it
		}
		ceilOut := (span+p.stride[i]-1)/p.stride[i] + 1
		torchOut := ceilOut
		if (ceilOut-1)*p.stride[i] >= in+p.pads[i] {
			torchOut--
		}
		floorOut := span/p.stride[i] + 1
		canonCeilOK = canonCeilOK && torchOut == ceilOut
		floorSame = floorSame && torchOut == floorOut
	}
	switch {
	case canonCeilOK:
		return true, nil
	case floorSame:
		return false, nil
	}
	return false, c.errf("ceil_mode=True with this input size drops a window torch's way, which has no canonical form")
}

func opMaxPool(nsp int) opHandler {
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
			return unbatched(c, x, func(xb *tensorVal) (value, error) { return maxPool(c, xb, p) })
		}
		return maxPool(c, x, p)
	}
}

func maxPool(c *opCall, x *tensorVal, p *poolArgs) (value, error) {
	ceil, err := resolveCeil(c, x, p)
	if err != nil {
		return nil, err
	}
	op := &canon.MaxPool{Kernel: p.kernel, Strides: p.stride, Dilations: p.dil, PadsBegin: p.pads, PadsEnd: clone(p.pads), CeilMode: ceil}
	return c.b().emit1(c.scope, op, x)
}

func opAvgPool(nsp int) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("input", "kernel_size", "stride=[]", "padding=0", "ceil_mode=False", "count_include_pad=True", "divisor_override=None"); err != nil {
			return nil, err
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		p, err := readPool(c, nsp, 1, 2, 3, -1, 4)
		if err != nil {
			return nil, err
		}
		include, err := c.bool(5)
		if err != nil {
			return nil, err
		}
		ap := &avgPoolArgs{poolArgs: *p, includePad: include}
		if !c.isNone(6) {
			if ap.divisor, err = c.int(6); err != nil {
				return nil, err
			}
			if ap.divisor == 0 {
				return nil, c.errf("divisor_override is 0")
			}
		}
		if isUnbatched(c, x, nsp) {
			return unbatched(c, x, func(xb *tensorVal) (value, error) { return avgPool(c, xb, ap) })
		}
		return avgPool(c, x, ap)
	}
}

// opAdaptiveAvgPool maps adaptive_avg_pool{1,2,3}d: an all-ones output is a
// global average; an output size that divides the input is a plain
// average pool; other sizes average PyTorch's uneven windows exactly.
func opAdaptiveAvgPool(nsp int) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("input", "output_size"); err != nil {
			return nil, err
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		if isUnbatched(c, x, nsp) {
			return unbatched(c, x, func(xb *tensorVal) (value, error) { return adaptiveAvgPool(c, xb, nsp) })
		}
		return adaptiveAvgPool(c, x, nsp)
	}
}

func adaptiveAvgPool(c *opCall, x *tensorVal, nsp int) (value, error) {
	var err error
	var outSize []value
	switch l := c.bound[1].(type) {
	case *listVal:
		outSize = l.items
	case *tupleVal:
		outSize = l.items
	default:
		outSize = []value{c.bound[1]}
	}
	if len(outSize) == 1 && nsp > 1 {
		for len(outSize) < nsp {
			outSize = append(outSize, outSize[0])
		}
	}
	if len(outSize) != nsp {
		return nil, c.errf("output_size has %d values, want %d", len(outSize), nsp)
	}
	global := true
	for _, v := range outSize {
		n, ok := toInt(v)
		global = global && ok && n == 1
	}
	if global {
		return c.b().emit1(c.scope, &canon.GlobalAveragePool{}, x)
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) != nsp+2 {
		return nil, c.errf("input has rank %d, want %d", len(shape), nsp+2)
	}
	kernel := make([]int64, nsp)
	for i, v := range outSize {
		in := shape[2+i]
		out := in
		if _, none := v.(noneVal); !none {
			n, ok := toInt(v)
			if !ok || n <= 0 {
				return nil, c.errf("output_size must hold positive ints")
			}
			out = n
		}
		if in%out != 0 {
			// Uneven windows: exact per-axis averaging (ops_resample.go).
			in, out, err := adaptiveSizes(c, x, nsp)
			if err != nil {
				return nil, err
			}
			return adaptiveAvgUneven(c, x, in, out)
		}
		kernel[i] = in / out
	}
	zeros := make([]int64, nsp)
	ones := make([]int64, nsp)
	for i := range ones {
		ones[i] = 1
	}
	op := &canon.AveragePool{Kernel: kernel, Strides: clone(kernel), Dilations: ones, PadsBegin: zeros, PadsEnd: clone(zeros)}
	return c.b().emit1(c.scope, op, x)
}
