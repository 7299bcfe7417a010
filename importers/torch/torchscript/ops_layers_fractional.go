package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.fractional_max_pool2d": entry(opFractionalMaxPool(2), fractionalKinds...),
		"torch.fractional_max_pool3d": entry(opFractionalMaxPool(3), fractionalKinds...),
	})
}

// fractionalKinds are the kinds fractional max pooling emits.
var fractionalKinds = []string{"Reshape", "GatherElements", "ReduceMax", "ArgMax", "Unsqueeze", "Squeeze"}

// opFractionalMaxPool maps aten::fractional_max_pool2d/3d(input,
// kernel_size, output_size, random_samples) when the samples are known at
// import (nn.FractionalMaxPool's _random_samples): PyTorch places each
// plane's windows by its samples, so the windows' positions are a
// constant and each output is the maximum of its window, gathered
// (GatherElements) and reduced; the indices are the first maximum's
// place in the plane, as PyTorch's row-major scan keeps it. Samples drawn
// per call are random and refused.
func opFractionalMaxPool(nsp int) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "kernel_size", "output_size", "random_samples")
		if err != nil {
			return nil, err
		}
		kernel, err := c.ints(1, nsp)
		if err != nil {
			return nil, err
		}
		out, err := c.ints(2, nsp)
		if err != nil {
			return nil, err
		}
		st, ok := c.bound[3].(*tensorVal)
		if !ok {
			return nil, c.errf("fractional max pooling without random_samples draws its windows at random per call; give the module fixed _random_samples to convert it")
		}
		samples, ok := constValue(c, st)
		if !ok {
			return nil, c.errf("random_samples are computed at run time (random windows per call); give the module fixed _random_samples to convert it")
		}
		if isUnbatched(c, x, nsp) {
			return unbatched(c, x, func(xb *tensorVal) (value, error) { return fractionalMaxPool(c, xb, kernel, out, samples) })
		}
		return fractionalMaxPool(c, x, kernel, out, samples)
	}
}

// fractionalStarts are PyTorch's window starts along one axis for one
// sample u, computed in float32 as its kernel does.
func fractionalStarts(u float32, in, out, pool int64) []int64 {
	seq := make([]int64, out)
	if out > 1 {
		alpha := float32(in-pool) / float32(out-1)
		for i := range out - 1 {
			seq[i] = int64(int32((float32(i)+u)*alpha)) - int64(int32(u*alpha))
		}
	}
	seq[out-1] = in - pool
	return seq
}

func fractionalMaxPool(c *opCall, x *tensorVal, kernel, out []int64, samples *canon.Tensor) (value, error) {
	nsp := len(kernel)
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) != nsp+2 {
		return nil, c.errf("input has shape %v, want (N, C) or (C) and %d spatial axes", shape, nsp)
	}
	n, ch, in := shape[0], shape[1], shape[2:]
	if len(samples.Shape) != 3 || samples.Shape[0] != n || samples.Shape[1] != ch || samples.Shape[2] != int64(nsp) {
		return nil, c.errf("random_samples have shape %v, want (%d, %d, %d)", samples.Shape, n, ch, nsp)
	}
	u, err := samples.Float64s()
	if err != nil {
		return nil, c.errf("random_samples: %v", err)
	}
	windows, size, plane := int64(1), int64(1), int64(1)
	for i := range nsp {
		if kernel[i] <= 0 || out[i] <= 0 || in[i]-kernel[i] < 0 || out[i]+kernel[i]-1 > in[i] {
			return nil, c.errf("kernel %v and output size %v do not fit the input %v", kernel, out, in)
		}
		windows *= out[i]
		size *= kernel[i]
		plane *= in[i]
	}
	total := n * ch * windows * size
	if err := c.b().a.fits("the fractional pooling windows", 8*total); err != nil {
		return nil, c.errf("%v", err)
	}
	// PyTorch's samples run over the axes as (w, h) in 2-D and (t, h, w)
	// in 3-D.
	sampleOf := []int{1, 0}
	if nsp == 3 {
		sampleOf = []int{0, 1, 2}
	}
	strides := make([]int64, nsp)
	strides[nsp-1] = 1
	for i := nsp - 2; i >= 0; i-- {
		strides[i] = strides[i+1] * in[i+1]
	}
	idx := make([]int64, 0, total)
	for p := range n * ch {
		starts := make([][]int64, nsp)
		for i := range nsp {
			starts[i] = fractionalStarts(float32(u[p*int64(nsp)+int64(sampleOf[i])]), in[i], out[i], kernel[i])
		}
		for w := range windows {
			// The window's start, then each of its positions, row-major.
			base, rest := int64(0), w
			for i := nsp - 1; i >= 0; i-- {
				base += starts[i][rest%out[i]] * strides[i]
				rest /= out[i]
			}
			for k := range size {
				off, rest := int64(0), k
				for i := nsp - 1; i >= 0; i-- {
					off += (rest % kernel[i]) * strides[i]
					rest /= kernel[i]
				}
				idx = append(idx, base+off)
			}
		}
	}
	e := layerEmit{c}
	flat, err := e.op(&canon.Reshape{Shape: []int64{n, ch, plane}, AllowZero: true}, x)
	if err != nil {
		return nil, err
	}
	places := i64s([]int64{n, ch, windows * size}, idx)
	picked, err := e.op(&canon.GatherElements{Axis: 2}, flat, places)
	if err != nil {
		return nil, err
	}
	grouped, err := e.op(&canon.Reshape{Shape: []int64{n, ch, windows, size}, AllowZero: true}, picked)
	if err != nil {
		return nil, err
	}
	best, err := e.op(&canon.Reduce{Fn: canon.ReduceMax, Axes: []int64{3}}, grouped)
	if err != nil {
		return nil, err
	}
	outShape := append([]int64{n, ch}, out...)
	y, err := e.op(&canon.Reshape{Shape: outShape, AllowZero: true}, best)
	if err != nil {
		return nil, err
	}
	b := c.b()
	from := len(b.g.Nodes)
	arg, err := e.op(&canon.ArgReduce{Axis: 3, KeepDims: true}, grouped)
	if err != nil {
		return nil, err
	}
	table := i64s([]int64{n, ch, windows, size}, idx)
	at, err := e.op(&canon.GatherElements{Axis: 3}, table, arg)
	if err != nil {
		return nil, err
	}
	indices, err := e.op(&canon.Reshape{Shape: clone(outShape), AllowZero: true}, at)
	if err != nil {
		return nil, err
	}
	b.markOptional(from)
	return &tupleVal{items: []value{y, indices}}, nil
}
