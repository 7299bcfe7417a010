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
		"torch.upsample_nearest1d":        entry(opUpsample(1, upNearest), "Resize", "Gather", "Shape", "Cast", "Div", "Reshape", "Range", "Add", "Mul", "Floor", "Sub", "Min"),
		"torch.upsample_nearest2d":        entry(opUpsample(2, upNearest), "Resize", "Gather", "Shape", "Cast", "Div", "Reshape", "Range", "Add", "Mul", "Floor", "Sub", "Min"),
		"torch.upsample_nearest3d":        entry(opUpsample(3, upNearest), "Resize", "Gather", "Shape", "Cast", "Div", "Reshape", "Range", "Add", "Mul", "Floor", "Sub", "Min"),
		"torch._upsample_nearest_exact1d": entry(opUpsample(1, upNearestExact), "Resize", "Gather", "Shape", "Cast", "Div", "Reshape", "Range", "Add", "Mul", "Floor", "Sub", "Min"),
		"torch._upsample_nearest_exact2d": entry(opUpsample(2, upNearestExact), "Resize", "Gather", "Shape", "Cast", "Div", "Reshape", "Range", "Add", "Mul", "Floor", "Sub", "Min"),
		"torch._upsample_nearest_exact3d": entry(opUpsample(3, upNearestExact), "Resize", "Gather", "Shape", "Cast", "Div", "Reshape", "Range", "Add", "Mul", "Floor", "Sub", "Min"),
		"torch.upsample_linear1d":         entry(opUpsample(1, upLinear), "Resize", "Concat"),
		"torch.upsample_bilinear2d":       entry(opUpsample(2, upLinear), "Resize", "Concat"),
		"torch.upsample_trilinear3d":      entry(opUpsample(3, upLinear), "Resize", "Concat"),
		"torch.upsample_bicubic2d":        entry(opUpsample(2, upCubic), "Resize", "Concat"),
		"torch._upsample_bilinear2d_aa":   entry(opUpsample(2, upLinearAA), "MatMul", "Reshape"),
		"torch._upsample_bicubic2d_aa":    entry(opUpsample(2, upCubicAA), "MatMul", "Reshape"),
		"torch.adaptive_max_pool1d":       entry(opAdaptiveMaxPool(1), adaptiveMaxKinds...),
		"torch.adaptive_max_pool2d":       entry(opAdaptiveMaxPool(2), adaptiveMaxKinds...),
		"torch.adaptive_max_pool3d":       entry(opAdaptiveMaxPool(3), adaptiveMaxKinds...),
		"torch._adaptive_avg_pool2d":      entry(opAdaptiveAvgPool(2), "GlobalAveragePool", "AveragePool", "MatMul", "Reshape", "Unsqueeze", "Squeeze"),
		"torch._adaptive_avg_pool3d":      entry(opAdaptiveAvgPool(3), "GlobalAveragePool", "AveragePool", "MatMul", "Reshape", "Unsqueeze", "Squeeze"),
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
			if err := refuseRunTimeScales(c, len(schema)-1); err != nil {
				return nil, err
			}
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
		if kind == upLinearAA || kind == upCubicAA {
			return upsampleAA(c, x, nsp, kind == upCubicAA, align, vec, scales)
		}
		op := &canon.Resize{}
		switch kind {
		case upNearest:
			op.CoordTransform, op.Nearest = canon.Asymmetric, canon.Floor
		case upNearestExact:
			op.CoordTransform, op.Nearest = canon.HalfPixel, canon.RoundPreferCeil
		case upLinear:
			op.Mode = canon.ResizeLinear
		case upCubic:
			op.Mode, op.CubicCoeffA = canon.ResizeCubic, -0.75
		}
		if align {
			op.CoordTransform = canon.AlignCorners
		}
		if !c.isNone(1) {
			if v, done, err := runTimeUpsample(c, x, kind, op, nsp, vec || scales == nil); done {
				return v, err
			}
			sizes, err := c.ints(1, nsp)
			if err != nil {
				return nil, err
			}
			if vec || scales == nil {
				if v, done, err := nearestToSizes(c, x, kind, sizes); done {
					return v, err
				}
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
		if (kind == upNearest || kind == upNearestExact) && !align {
			// Nearest picks whole input entries: ops_layers_upscale.go
			// writes PyTorch's picks exactly.
			return nearestUpsample(c, x, kind, op, scales)
		}
		op.Scales = make([]float32, nsp+2)
		op.Scales[0], op.Scales[1] = 1, 1
		for i, s := range scales {
			fixed, err := torchAxisScale(c, x, kind, 2+i, s)
			if err != nil {
				return nil, err
			}
			if fixed != 0 {
				op.Scales[2+i] = fixed
				continue
			}
			if float64(float32(s)) != s && !align {
				// ONNX scales are float32: a double torch scale that
				// float32 rounds must give the same sizes and positions
				// (ops_layers_upscale.go).
				if err := float32ScaleAgrees(c, x, 2+i, s); err != nil {
					return nil, err
				}
			}
			op.Scales[2+i] = float32(s)
		}
		if err := resizeKeepsShape(c, x, op.Scales); err != nil {
			return nil, err
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

// upsampleAA writes torch's antialiased bilinear/bicubic resize, whose
// taps stop at the input's edges (ONNX's antialias repeats the edge), as
// one MatMul per axis with torch's weights.
func upsampleAA(c *opCall, x *tensorVal, nsp int, cubic, align, vec bool, scales []float64) (value, error) {
	if align {
		return nil, c.errf("antialiased resize with align_corners=True is not supported")
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	var sizes []int64
	if !c.isNone(1) {
		if sizes, err = c.ints(1, nsp); err != nil {
			return nil, err
		}
	}
	weights := make([][][]float64, nsp)
	for k := range nsp {
		in := shape[2+k]
		var out int64
		var scale float64
		switch {
		case sizes != nil:
			out = sizes[k]
			scale = float64(in) / float64(out)
			if !vec && scales != nil {
				scale = 1 / scales[k]
			}
		case scales != nil:
			out = int64(math.Floor(float64(in) * scales[k]))
			scale = 1 / scales[k]
		default:
			return nil, c.errf("neither output_size nor scale factors are given")
		}
		if out < 1 || in < 1 {
			return nil, c.errf("cannot resize axis of %d to %d", in, out)
		}
		if out == in && scale == 1 {
			continue
		}
		weights[k] = torchAAWeights(in, out, scale, cubic)
	}
	return axisMatMuls(c, x, weights)
}

// adaptiveAvgUneven averages PyTorch's uneven windows exactly as one
// MatMul per axis with an averaging matrix (the windows are a product of
// per-axis intervals, so the mean is separable).
func adaptiveAvgUneven(c *opCall, x *tensorVal, in, out []int64) (value, error) {
	weights := make([][][]float64, len(in))
	for k := range in {
		if in[k] == out[k] {
			continue
		}
		starts, ends := adaptiveWindows(in[k], out[k])
		weights[k] = make([][]float64, out[k])
		for o := range out[k] {
			row := make([]float64, in[k])
			for i := starts[o]; i < ends[o]; i++ {
				row[i] = 1 / float64(ends[o]-starts[o])
			}
			weights[k][o] = row
		}
	}
	return axisMatMuls(c, x, weights)
}

// axisMatMuls resamples the trailing axes of x by weight matrices
// (weights[k][o][i]: the weight of input i in output o of the k-th of the
// trailing axes; nil leaves an axis alone): the last axis as X·Aᵀ, the
// others as A·X over a view that puts the axis second to last.
func axisMatMuls(c *opCall, x *tensorVal, weights [][][]float64) (*tensorVal, error) {
	b := c.b()
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	cur := append([]int64(nil), shape...)
	r, nsp := len(cur), len(weights)
	for k := nsp - 1; k >= 0; k-- {
		w := weights[k]
		if w == nil {
			continue
		}
		axis := r - nsp + k
		in, out := cur[axis], int64(len(w))
		if axis == r-1 {
			m := make([]float32, in*out)
			for o, row := range w {
				for i, v := range row {
					m[int64(i)*out+int64(o)] = float32(v)
				}
			}
			if x, err = b.emit1(c.scope, &canon.MatMul{}, x, &tensorVal{konst: canon.NewFloat32Tensor("", []int64{in, out}, m)}); err != nil {
				return nil, err
			}
			cur[axis] = out
			continue
		}
		m := make([]float32, out*in)
		for o, row := range w {
			for i, v := range row {
				m[int64(o)*in+int64(i)] = float32(v)
			}
		}
		rest := int64(1)
		for _, d := range cur[axis+1:] {
			rest *= d
		}
		view := append(append([]int64(nil), cur[:axis]...), in, rest)
		if axis != r-2 {
			if x, err = b.emit1(c.scope, &canon.Reshape{Shape: view}, x); err != nil {
				return nil, err
			}
		}
		if x, err = b.emit1(c.scope, &canon.MatMul{}, &tensorVal{konst: canon.NewFloat32Tensor("", []int64{out, in}, m)}, x); err != nil {
			return nil, err
		}
		cur[axis] = out
		if axis != r-2 {
			if x, err = b.emit1(c.scope, &canon.Reshape{Shape: append([]int64(nil), cur...)}, x); err != nil {
				return nil, err
			}
		}
	}
	return x, nil
}

// torchAAWeights are PyTorch's antialiased interpolation weights for one
// axis (aten's _compute_weights_aa): output o centres at scale·(o+0.5)
// with scale = in/out (or 1/scale factor), the filter (triangle, or Keys
// cubic with a = -0.5) stretched by the scale when downsampling, the taps
// cut at the input's edges and normalized.
func torchAAWeights(in, out int64, scale float64, cubic bool) [][]float64 {
	interp := 2.0
	if cubic {
		interp = 4
	}
	support, inv := interp/2, 1.0
	if scale >= 1 {
		support, inv = interp/2*scale, 1/scale
	}
	filter := func(x float64) float64 {
		x = math.Abs(x)
		if !cubic {
			return max(0, 1-x)
		}
		const a = -0.5
		switch {
		case x < 1:
			return ((a+2)*x-(a+3))*x*x + 1
		case x < 2:
			return (((x-5)*x+8)*x - 4) * a
		}
		return 0
	}
	w := make([][]float64, out)
	for o := range out {
		center := scale * (float64(o) + 0.5)
		xmin := max(int64(center-support+0.5), 0)
		xmax := min(int64(center+support+0.5), in)
		row := make([]float64, in)
		total := 0.0
		for j := xmin; j < xmax; j++ {
			row[j] = filter((float64(j) - center + 0.5) * inv)
			total += row[j]
		}
		if total != 0 {
			for j := range row {
				row[j] /= total
			}
		}
		w[o] = row
	}
	return w
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
		if isUnbatched(c, x, nsp) {
			return unbatched(c, x, func(xb *tensorVal) (value, error) { return adaptiveMaxPool(c, xb, nsp) })
		}
		return adaptiveMaxPool(c, x, nsp)
	}
}

func adaptiveMaxPool(c *opCall, x *tensorVal, nsp int) (value, error) {
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
	// The indices (second result) are dropped when nothing reads them.
	from := len(b.g.Nodes)
	idx, err := adaptiveMaxIndices(c, x, in, out)
	if err != nil {
		return nil, err
	}
	b.markOptional(from)
	return &tupleVal{items: []value{y, idx}}, nil
}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.grid_sampler":          entry(opGridSampler, "GridSample"),
		"torch.grid_sampler_2d":       entry(opGridSampler, "GridSample"),
		"torch.grid_sampler_3d":       entry(opGridSampler, "GridSample"),
		"torch.affine_grid_generator": entry(opAffineGrid, "AffineGrid"),
		"torch.col2im":                entry(opCol2Im, "Col2Im", "Unsqueeze", "Squeeze"),
	})
}

// opGridSampler maps aten::grid_sampler: interpolation 0 bilinear, 1
// nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection.
func opGridSampler(c *opCall) (value, error) {
	if err := c.bind("input", "grid", "interpolation_mode", "padding_mode", "align_corners"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	g, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	im, err := c.int(2)
	if err != nil {
		return nil, err
	}
	pm, err := c.int(3)
	if err != nil {
		return nil, err
	}
	align, err := c.bool(4)
	if err != nil {
		return nil, err
	}
	if im < 0 || im > 2 || pm < 0 || pm > 2 {
		return nil, c.errf("interpolation mode %d or padding mode %d is not one of torch's (0-2)", im, pm)
	}
	if r, err := c.rankOf(x, "the input"); err == nil && r == 5 && im == 1 {
		return nil, c.errf("3-D nearest grid sampling rounds halves away from zero in torch, to even in the canonical GridSample")
	}
	if im == 2 && pm == 1 {
		// torch clamps each bicubic tap; ONNX clamps the point first.
		return nil, c.errf("bicubic grid sampling with border padding clamps each tap in torch but the point in the canonical GridSample")
	}
	mode := [...]canon.ResizeMode{canon.ResizeLinear, canon.ResizeNearest, canon.ResizeCubic}[im]
	pad := [...]canon.GridPadding{canon.GridZeros, canon.GridBorder, canon.GridReflection}[pm]
	return c.b().emit1(c.scope, &canon.GridSample{Mode: mode, Padding: pad, AlignCorners: align}, x, g)
}

func opAffineGrid(c *opCall) (value, error) {
	if err := c.bind("theta", "size", "align_corners"); err != nil {
		return nil, err
	}
	th, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	size, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	align, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	for _, d := range size[min(2, len(size)):] {
		if align && d == 1 {
			return nil, c.errf("an axis of size 1 with align_corners: torch samples it at 0, the canonical AffineGrid (ONNX) at -1")
		}
	}
	return c.b().emit1(c.scope, &canon.AffineGrid{Size: size, AlignCorners: align}, th)
}

// opCol2Im maps aten::col2im (F.fold) with symmetric padding; an unbatched
// (C·∏k, L) input gets a batch axis around the op.
func opCol2Im(c *opCall) (value, error) {
	if err := c.bind("input", "output_size", "kernel_size", "dilation", "padding", "stride"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	var v [5][]int64
	for i := range v {
		if v[i], err = c.ints(1+i, 2); err != nil {
			return nil, err
		}
	}
	op := &canon.Col2Im{ImageShape: v[0], BlockShape: v[1], Dilations: v[2], PadsBegin: v[3], PadsEnd: clone(v[3]), Strides: v[4]}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if r == 3 {
		return c.b().emit1(c.scope, op, x)
	}
	if r != 2 {
		return nil, c.errf("input has rank %d, want (N, C·∏kernel, L) or (C·∏kernel, L)", r)
	}
	b := c.b()
	x3, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{0}}, x)
	if err != nil {
		return nil, err
	}
	y, err := b.emit1(c.scope, op, x3)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Squeeze{Axes: []int64{0}}, y)
}
