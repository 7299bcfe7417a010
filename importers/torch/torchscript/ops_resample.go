package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The resampling family: the upsample_* operators F.interpolate traces to,
// and adaptive pooling with windows that do not divide the input.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.upsample_nearest1d":        entry(opUpsample(1, upNearest), "Resize"),
		"torch.upsample_nearest2d":        entry(opUpsample(2, upNearest), "Resize"),
		"torch.upsample_nearest3d":        entry(opUpsample(3, upNearest), "Resize"),
		"torch._upsample_nearest_exact1d": entry(opUpsample(1, upNearestExact), "Resize"),
		"torch._upsample_nearest_exact2d": entry(opUpsample(2, upNearestExact), "Resize"),
		"torch._upsample_nearest_exact3d": entry(opUpsample(3, upNearestExact), "Resize"),
		"torch.upsample_linear1d":         entry(opUpsample(1, upLinear), "Resize"),
		"torch.upsample_bilinear2d":       entry(opUpsample(2, upLinear), "Resize"),
		"torch.upsample_trilinear3d":      entry(opUpsample(3, upLinear), "Resize"),
		"torch.upsample_bicubic2d":        entry(opUpsample(2, upCubic), "Resize"),
		"torch._upsample_bilinear2d_aa":   entry(opUpsample(2, upLinearAA), "Resize"),
		"torch._upsample_bicubic2d_aa":    entry(opUpsample(2, upCubicAA), "Resize"),
		"torch.adaptive_max_pool1d":       entry(opAdaptiveMaxPool(1), "GlobalMaxPool", "MaxPool", "Slice", "ReduceMax", "Concat"),
		"torch.adaptive_max_pool2d":       entry(opAdaptiveMaxPool(2), "GlobalMaxPool", "MaxPool", "Slice", "ReduceMax", "Concat"),
		"torch.adaptive_max_pool3d":       entry(opAdaptiveMaxPool(3), "GlobalMaxPool", "MaxPool", "Slice", "ReduceMax", "Concat"),
		"torch._adaptive_avg_pool2d":      entry(opAdaptiveAvgPool(2), "GlobalAveragePool", "AveragePool", "MatMul", "Reshape"),
		"torch._adaptive_avg_pool3d":      entry(opAdaptiveAvgPool(3), "GlobalAveragePool", "AveragePool", "MatMul", "Reshape"),
	})
	// Mapped now (the shared table still lists them as missing).
	delete(opLacks, "Resize")
	delete(opLacks, "GlobalMaxPool")
	delete(opLacks, "Slice") // adaptive max pooling slices windows
}

type upsampleKind uint8

const (
	upNearest upsampleKind = iota
	upNearestExact
	upLinear
	upCubic
	upLinearAA
	upCubicAA
)

// opUpsample maps aten::upsample_* in both overloads: (input, output_size,
// [align_corners,] scale_factors) with lists, and (input, output_size,
// [align_corners,] scales...) with one optional float per axis.
//
// torch maps output index d to input coordinate (d + 0.5)·in/out - 0.5
// (linear clamps negatives to 0, which changes nothing as the edge is
// repeated), or d·(in-1)/(out-1) with align_corners, or floor(d·in/out)
// for nearest and floor((d + 0.5)·in/out) for nearest-exact; in/out is
// 1/scale when a scale factor is given. These are ONNX's half_pixel,
// align_corners, asymmetric+floor and half_pixel+round_prefer_ceil.
func opUpsample(nsp int, kind upsampleKind) opHandler {
	return func(c *opCall) (value, error) {
		hasAlign := kind != upNearest && kind != upNearestExact
		schema := []string{"input", "output_size"}
		if hasAlign {
			schema = append(schema, "align_corners")
		}
		// The vec overload ends with one list; the other with one float
		// per spatial axis.
		nArgs := len(c.args) + len(c.kwargs)
		vec := nArgs == len(schema)+1
		if vec {
			schema = append(schema, "scale_factors")
		} else {
			for i := range nsp {
				schema = append(schema, "scales_"+string(rune('0'+i))+"=None")
			}
		}
		if err := c.bind(schema...); err != nil {
			return nil, err
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		align := false
		if hasAlign {
			if align, err = c.bool(2); err != nil {
				return nil, err
			}
		}
		rank, err := c.rankOf(x, "the input")
		if err != nil {
			return nil, err
		}
		if rank != nsp+2 {
			return nil, c.errf("input has rank %d, want %d", rank, nsp+2)
		}
		first := len(schema) - nsp
		var scales []float64
		switch {
		case vec && !c.isNone(len(schema)-1):
			if scales, err = c.floatList(len(schema)-1, nsp); err != nil {
				return nil, err
			}
		case !vec:
			for i := range nsp {
				if c.isNone(first + i) {
					continue
				}
				f, err := c.float(first + i)
				if err != nil {
					return nil, err
				}
				scales = append(scales, f)
			}
			if len(scales) != nsp {
				scales = nil
			}
		}
		op := &canon.Resize{CubicCoeffA: -0.75}
		switch kind {
		case upNearest:
			op.CoordTransform, op.Nearest = canon.Asymmetric, canon.Floor
		case upNearestExact:
			op.CoordTransform, op.Nearest = canon.HalfPixel, canon.RoundPreferCeil
		case upLinear, upLinearAA:
			op.Mode = canon.ResizeLinear
		case upCubic, upCubicAA:
			op.Mode = canon.ResizeCubic
		}
		op.Antialias = kind == upLinearAA || kind == upCubicAA
		if align {
			op.CoordTransform = canon.AlignCorners
		}
		if !c.isNone(1) {
			sizes, err := c.ints(1, nsp)
			if err != nil {
				return nil, err
			}
			if vec || scales == nil {
				// Sizes alone: torch's in/out is ONNX's size/in scale.
				op.Sizes, op.Axes = sizes, spatialAxes(nsp)
				if shape, ok := c.b().info(x).StaticShape(); ok {
					op.Sizes, op.Axes = append([]int64{shape[0], shape[1]}, sizes...), nil
				}
				return c.b().emit1(c.scope, op, x)
			}
			// Explicit scales with the sizes they produced: torch maps
			// with 1/scale, so the op keeps the scales, which must give the
			// same sizes.
			shape, err := c.shapeOf(x, "the input")
			if err != nil {
				return nil, err
			}
			for i, s := range scales {
				if int64(math.Floor(float64(shape[2+i])*s)) != sizes[i] {
					return nil, c.errf("output size %v does not follow from scales %v and input %v; torch would map coordinates by the scales, ONNX cannot do both", sizes, scales, shape)
				}
			}
		}
		if scales == nil {
			return nil, c.errf("neither output_size nor scale factors are given")
		}
		op.Scales = make([]float32, nsp+2)
		op.Scales[0], op.Scales[1] = 1, 1
		for i, s := range scales {
			if float64(float32(s)) != s && !align {
				// ONNX scales are float32: a double torch scale that
				// float32 rounds would move the coordinates.
				return nil, c.errf("scale factor %v is not exactly a float32, which ONNX's Resize scales are", s)
			}
			op.Scales[2+i] = float32(s)
		}
		return c.b().emit1(c.scope, op, x)
	}
}

// spatialAxes are the axes after batch and channels.
func spatialAxes(nsp int) []int64 {
	axes := make([]int64, nsp)
	for i := range axes {
		axes[i] = int64(2 + i)
	}
	return axes
}

// floatList reads a list of numbers (torch's float[] arguments).
func (c *opCall) floatList(i, n int) ([]float64, error) {
	var items []value
	switch x := c.bound[i].(type) {
	case *listVal:
		items = x.items
	case *tupleVal:
		items = x.items
	default:
		return nil, c.errf("argument %s must be a list of floats, got %s", c.params[i], typeName(c.bound[i]))
	}
	out := make([]float64, len(items))
	for k, it := range items {
		switch v := it.(type) {
		case float64:
			out[k] = v
		case int64:
			out[k] = float64(v)
		default:
			return nil, c.errf("argument %s: element %d is a %s, not a number known at import", c.params[i], k, typeName(it))
		}
	}
	if len(out) == 1 && n > 1 {
		for len(out) < n {
			out = append(out, out[0])
		}
	}
	if len(out) != n {
		return nil, c.errf("argument %s has %d values, want %d", c.params[i], len(out), n)
	}
	return out, nil
}

// adaptiveWindows are PyTorch's adaptive pooling windows along one axis:
// output i covers [floor(i·in/out), ceil((i+1)·in/out)).
func adaptiveWindows(in, out int64) (starts, ends []int64) {
	for i := int64(0); i < out; i++ {
		starts = append(starts, i*in/out)
		ends = append(ends, ((i+1)*in+out-1)/out)
	}
	return starts, ends
}

// adaptiveSizes reads output_size against the input's static shape (None
// keeps an axis' size).
func adaptiveSizes(c *opCall, x *tensorVal, nsp int) (in, out []int64, err error) {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, nil, err
	}
	if len(shape) != nsp+2 {
		return nil, nil, c.errf("input has rank %d, want %d", len(shape), nsp+2)
	}
	var items []value
	switch l := c.bound[1].(type) {
	case *listVal:
		items = l.items
	case *tupleVal:
		items = l.items
	default:
		items = []value{c.bound[1]}
	}
	for len(items) < nsp && len(items) == 1 {
		items = append(items, items[0])
	}
	if len(items) != nsp {
		return nil, nil, c.errf("output_size has %d values, want %d", len(items), nsp)
	}
	in, out = shape[2:], make([]int64, nsp)
	for i, v := range items {
		out[i] = in[i]
		if _, none := v.(noneVal); none {
			continue
		}
		n, ok := toInt(v)
		if !ok || n <= 0 {
			return nil, nil, c.errf("output_size must hold positive ints")
		}
		out[i] = n
	}
	return in, out, nil
}

// adaptiveAvgUneven averages PyTorch's uneven windows exactly as one
// MatMul per axis with an averaging matrix (the windows are a product of
// per-axis intervals, so the mean is separable): the last axis as X·A, the
// others as Aᵀ·X over a view that puts the axis second to last.
func adaptiveAvgUneven(c *opCall, x *tensorVal, in, out []int64) (value, error) {
	b := c.b()
	shape, _ := c.shapeOf(x, "the input")
	cur := append([]int64(nil), shape...)
	r := len(cur)
	nsp := len(in)
	for k := nsp - 1; k >= 0; k-- {
		axis := r - nsp + k
		if in[k] == out[k] {
			continue
		}
		starts, ends := adaptiveWindows(in[k], out[k])
		if axis == r-1 {
			m := make([]float32, in[k]*out[k])
			for o := range out[k] {
				w := float32(1) / float32(ends[o]-starts[o])
				for i := starts[o]; i < ends[o]; i++ {
					m[i*out[k]+o] = w
				}
			}
			a := &tensorVal{konst: canon.NewFloat32Tensor("", []int64{in[k], out[k]}, m)}
			var err error
			if x, err = b.emit1(c.scope, &canon.MatMul{}, x, a); err != nil {
				return nil, err
			}
			cur[axis] = out[k]
			continue
		}
		m := make([]float32, out[k]*in[k])
		for o := range out[k] {
			w := float32(1) / float32(ends[o]-starts[o])
			for i := starts[o]; i < ends[o]; i++ {
				m[o*in[k]+i] = w
			}
		}
		a := &tensorVal{konst: canon.NewFloat32Tensor("", []int64{out[k], in[k]}, m)}
		// View (..., in, rest) with the axis second to last.
		rest := int64(1)
		for _, d := range cur[axis+1:] {
			rest *= d
		}
		view := append(append([]int64(nil), cur[:axis]...), in[k], rest)
		var err error
		if axis != r-2 {
			if x, err = b.emit1(c.scope, &canon.Reshape{Shape: view}, x); err != nil {
				return nil, err
			}
		}
		if x, err = b.emit1(c.scope, &canon.MatMul{}, a, x); err != nil {
			return nil, err
		}
		cur[axis] = out[k]
		if axis != r-2 {
			if x, err = b.emit1(c.scope, &canon.Reshape{Shape: append([]int64(nil), cur...)}, x); err != nil {
				return nil, err
			}
		}
	}
	return x, nil
}

// opAdaptiveMaxPool maps adaptive_max_pool{1,2,3}d: a global max, a plain
// max pool when the output divides the input, otherwise per-axis window
// maxima (Slice, ReduceMax, Concat), exact because a window is a product
// of intervals. The indices output is not produced.
func opAdaptiveMaxPool(nsp int) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("input", "output_size"); err != nil {
			return nil, err
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		in, out, err := adaptiveSizes(c, x, nsp)
		if err != nil {
			return nil, err
		}
		b := c.b()
		global, divides := true, true
		for i := range in {
			global = global && out[i] == 1
			divides = divides && in[i]%out[i] == 0
		}
		var y *tensorVal
		switch {
		case global:
			y, err = b.emit1(c.scope, &canon.GlobalMaxPool{}, x)
		case divides:
			kernel := make([]int64, nsp)
			ones := make([]int64, nsp)
			for i := range kernel {
				kernel[i], ones[i] = in[i]/out[i], 1
			}
			y, err = b.emit1(c.scope, &canon.MaxPool{Kernel: kernel, Strides: clone(kernel), Dilations: ones,
				PadsBegin: make([]int64, nsp), PadsEnd: make([]int64, nsp)}, x)
		default:
			y = x
			for k := range nsp {
				if in[k] == out[k] {
					continue
				}
				axis := int64(2 + k)
				starts, ends := adaptiveWindows(in[k], out[k])
				parts := make([]*tensorVal, out[k])
				for o := range out[k] {
					s, err := b.emit1(c.scope, &canon.Slice{Starts: []int64{starts[o]}, Ends: []int64{ends[o]}, Axes: []int64{axis}, Steps: []int64{1}}, y)
					if err != nil {
						return nil, err
					}
					if parts[o], err = b.emit1(c.scope, &canon.Reduce{Fn: canon.ReduceMax, Axes: []int64{axis}, KeepDims: true}, s); err != nil {
						return nil, err
					}
				}
				if y, err = b.emit1(c.scope, &canon.Concat{Axis: axis}, parts...); err != nil {
					return nil, err
				}
			}
		}
		if err != nil {
			return nil, err
		}
		// The indices (second result) are not computed: a model that uses
		// them fails where it reads this None.
		return &tupleVal{items: []value{y, noneVal{}}}, nil
	}
}
