package mxnetimport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The resampling family: bilinear UpSampling, _contrib_BilinearResize2D and
// _contrib_AdaptiveAvgPooling2D.

func init() {
	optable.Add(&converters, map[string]mxOp{
		"_contrib_BilinearResize2D":     {convBilinearResize2D, []string{"Resize"}},
		"_contrib_AdaptiveAvgPooling2D": {convAdaptiveAvgPool2D, []string{"GlobalAveragePool", "AveragePool", "MatMul"}},
	})
}

// convUpSamplingBilinear: MXNet runs bilinear UpSampling as a depthwise
// Deconvolution (kernel 2s - s%2, stride s, pad ceil((s-1)/2), one group
// per channel, no bias) with the node's weight input, which an initializer
// usually fills with a bilinear kernel. The weight is whatever the
// checkpoint holds, so the Deconvolution is imported as it runs.
func convUpSamplingBilinear(b *builder, c *nodeCtx, scale int64) ([]string, error) {
	if err := c.a.required("num_filter"); err != nil {
		return nil, err
	}
	nf, err := c.a.int("num_filter", 0)
	if err != nil {
		return nil, err
	}
	if nf <= 0 || scale < 1 {
		return nil, c.errf("bilinear UpSampling needs a positive num_filter (%d) and scale (%d)", nf, scale)
	}
	if len(c.n.Inputs) != 2 {
		return nil, c.errf("bilinear UpSampling has %d inputs, want the data and the weight", len(c.n.Inputs))
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	if xs, ok := b.shapeOf(x); ok && len(xs) == 4 && xs[1] >= 0 && xs[1] != nf {
		return nil, c.errf("input has %d channels but num_filter is %d", xs[1], nf)
	}
	k := 2*scale - scale%2
	p := (scale) / 2 // ceil((scale-1)/2)
	w, err := b.param(c, 1, canon.RoleDeconvWeight, []int64{nf, 1, k, k})
	if err != nil {
		return nil, err
	}
	op := &canon.ConvTranspose{Strides: []int64{scale, scale}, Dilations: []int64{1, 1}, PadsBegin: []int64{p, p}, PadsEnd: []int64{p, p},
		OutputPadding: []int64{0, 0}, Group: nf}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, op, []string{x, w, ""}, out)
}

// convBilinearResize2D: MXNet 1.6+ maps output index d to
// (d+0.5)·in/out-0.5 clamped at 0 (and 0 for an output of one) or, with
// align_corners (the default, and older MXNet's only behaviour), to
// d·(in-1)/(out-1): ONNX's pytorch_half_pixel and align_corners, with the
// output size of the mode.
func convBilinearResize2D(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	s, err := b.staticShape(x, c.n.Name, "BilinearResize2D")
	if err != nil {
		return nil, err
	}
	if len(s) != 4 {
		return nil, c.errf("input has rank %d, want (N, C, H, W)", len(s))
	}
	align, err := c.a.bool("align_corners", true)
	if err != nil {
		return nil, err
	}
	h, err := c.a.int("height", 1)
	if err != nil {
		return nil, err
	}
	w, err := c.a.int("width", 1)
	if err != nil {
		return nil, err
	}
	var sh, sw float64
	if c.a.has("scale_height") || c.a.has("scale_width") {
		if sh, err = c.a.float("scale_height", 1); err != nil {
			return nil, err
		}
		if sw, err = c.a.float("scale_width", sh); err != nil {
			return nil, err
		}
	}
	H, W := s[2], s[3]
	mode := c.a.str("mode", "size")
	switch mode {
	case "size":
		if sh != 0 {
			h, w = int64(sh*float64(H)), int64(sw*float64(W))
		}
	case "odd_scale":
		if sh == 0 {
			return nil, c.errf("mode odd_scale needs scale_height and scale_width")
		}
		odd := func(n int64, sc float64) int64 {
			if n%2 == 0 {
				return int64(float64(n) * sc)
			}
			return int64(float64(n-1)*sc) + 1
		}
		h, w = odd(H, sh), odd(W, sw)
	case "like":
		like, err := b.in(c, 1)
		if err != nil {
			return nil, err
		}
		ls, err := b.staticShape(like, c.n.Name, "BilinearResize2D with mode like")
		if err != nil {
			return nil, err
		}
		if len(ls) != 4 {
			return nil, c.errf("the like input has rank %d, want 4", len(ls))
		}
		h, w = ls[2], ls[3]
	case "to_even_down", "to_even_up", "to_odd_down", "to_odd_up":
		wantOdd := mode == "to_odd_down" || mode == "to_odd_up"
		step := int64(1)
		if mode == "to_even_down" || mode == "to_odd_down" {
			step = -1
		}
		fix := func(n int64) int64 {
			if (n%2 == 1) != wantOdd {
				return n + step
			}
			return n
		}
		h, w = fix(H), fix(W)
	default:
		return nil, c.errf("mode %q is not supported (size, odd_scale, like, to_even_down, to_even_up, to_odd_down, to_odd_up)", mode)
	}
	if h < 1 || w < 1 || h > math.MaxInt32 || w > math.MaxInt32 {
		return nil, c.errf("output size %dx%d is not positive", h, w)
	}
	op := &canon.Resize{Mode: canon.ResizeLinear, CoordTransform: canon.PytorchHalfPixel, Sizes: []int64{s[0], s[1], h, w}}
	if align {
		op.CoordTransform = canon.AlignCorners
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, op, []string{x}, out)
}

// convAdaptiveAvgPool2D: MXNet's windows are PyTorch's, [floor(i·in/out),
// ceil((i+1)·in/out)). A global or evenly dividing output is a plain pool;
// other sizes average exactly with one MatMul per axis (Aᵀ·X over H, then
// X·A over W), as a window is a product of intervals.
func convAdaptiveAvgPool2D(b *builder, c *nodeCtx) ([]string, error) {
	size, err := c.a.ints("output_size", nil)
	if err != nil {
		return nil, err
	}
	switch len(size) {
	case 0:
		size = []int64{1, 1}
	case 1:
		size = []int64{size[0], size[0]}
	case 2:
	default:
		return nil, c.errf("output_size %v: want one or two sizes", size)
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	if size[0] == 1 && size[1] == 1 {
		return single(b, c, &canon.GlobalAveragePool{})
	}
	s, err := b.staticShape(x, c.n.Name, "AdaptiveAvgPooling2D")
	if err != nil {
		return nil, err
	}
	if len(s) != 4 {
		return nil, c.errf("input has rank %d, want (N, C, H, W)", len(s))
	}
	if size[0] < 1 || size[1] < 1 {
		return nil, c.errf("output_size %v must be positive", size)
	}
	if s[2]%size[0] == 0 && s[3]%size[1] == 0 {
		k := []int64{s[2] / size[0], s[3] / size[1]}
		return single(b, c, &canon.AveragePool{Kernel: k, Strides: []int64{k[0], k[1]}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}})
	}
	cur := x
	if s[3] != size[1] {
		a := b.constant(canon.NewFloat32Tensor(c.n.Name+"_avg_w", []int64{s[3], size[1]}, adaptiveAvgMatrix(s[3], size[1], false)))
		next := b.fresh(c.n.Name + "_w")
		if err := b.emit(next, &canon.MatMul{}, []string{cur, a}, next); err != nil {
			return nil, err
		}
		cur = next
	}
	if s[2] != size[0] {
		a := b.constant(canon.NewFloat32Tensor(c.n.Name+"_avg_h", []int64{size[0], s[2]}, adaptiveAvgMatrix(s[2], size[0], true)))
		next := b.fresh(c.n.Name)
		if err := b.emit(next, &canon.MatMul{}, []string{a, cur}, next); err != nil {
			return nil, err
		}
		cur = next
	}
	return []string{cur}, nil
}

// adaptiveAvgMatrix is the in×out (or, transposed, out×in) matrix whose
// column o averages adaptive window o.
func adaptiveAvgMatrix(in, out int64, transposed bool) []float32 {
	m := make([]float32, in*out)
	for o := int64(0); o < out; o++ {
		start, end := o*in/out, ((o+1)*in+out-1)/out
		w := 1 / float32(end-start)
		for i := start; i < end; i++ {
			if transposed {
				m[o*in+i] = w
			} else {
				m[i*out+o] = w
			}
		}
	}
	return m
}

func init() {
	optable.Add(&converters, map[string]mxOp{
		"BilinearSampler": {convBilinearSampler, []string{"Transpose", "GridSample"}},
		"GridGenerator":   {convGridGenerator, []string{"Reshape", "AffineGrid", "Transpose"}},
		"col2im":          {convCol2Im, []string{"Col2Im"}},
	})
}

// convCol2Im reads MXNet 1.6's col2im (PyTorch's fold): data (N,
// C·∏kernel, L) summed into (N, C, output_size), symmetric padding.
func convCol2Im(b *builder, c *nodeCtx) ([]string, error) {
	for _, k := range []string{"output_size", "kernel"} {
		if err := c.a.required(k); err != nil {
			return nil, err
		}
	}
	size, err := c.a.ints("output_size", nil)
	if err != nil {
		return nil, err
	}
	kernel, err := c.a.ints("kernel", nil)
	if err != nil {
		return nil, err
	}
	n := len(kernel)
	if len(size) != n || n == 0 {
		return nil, c.errf("output_size %v and kernel %v must have the same, non-zero length", size, kernel)
	}
	get := func(key string, def int64) ([]int64, error) {
		v, err := c.a.ints(key, nil)
		if err != nil || len(v) == 0 {
			return ones(n, def), err
		}
		if len(v) != n {
			return nil, c.errf("%s %v must have %d values", key, v, n)
		}
		return v, nil
	}
	stride, err := get("stride", 1)
	if err != nil {
		return nil, err
	}
	dilate, err := get("dilate", 1)
	if err != nil {
		return nil, err
	}
	pad, err := get("pad", 0)
	if err != nil {
		return nil, err
	}
	return single(b, c, &canon.Col2Im{ImageShape: size, BlockShape: kernel, Strides: stride, Dilations: dilate,
		PadsBegin: pad, PadsEnd: append([]int64(nil), pad...)})
}

// convBilinearSampler: MXNet samples data at grid (N, 2, H', W'), x then
// y, at ((g+1)·(size-1)/2) with zeros outside: GridSample with aligned
// corners and zeros padding over the channel-last grid.
func convBilinearSampler(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	g, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	gt := b.fresh(c.n.Name + "_grid")
	if err := b.emit(gt, &canon.Transpose{Perm: []int64{0, 2, 3, 1}}, []string{g}, gt); err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.GridSample{Mode: canon.ResizeLinear, Padding: canon.GridZeros, AlignCorners: true}, []string{x, gt}, out)
}

// convGridGenerator reads transform_type=affine: each row of data (N, 6)
// is a 2×3 map applied to the aligned-corner grid of target_shape, the
// result channel-first (N, 2, H, W).
func convGridGenerator(b *builder, c *nodeCtx) ([]string, error) {
	if t := c.a.str("transform_type", ""); t != "affine" {
		return nil, c.errf("transform_type %q is not supported (only affine)", t)
	}
	if err := c.a.required("target_shape"); err != nil {
		return nil, err
	}
	ts, err := c.a.ints("target_shape", nil)
	if err != nil {
		return nil, err
	}
	if len(ts) != 2 || ts[0] < 1 || ts[1] < 1 {
		return nil, c.errf("target_shape %v: want (H, W)", ts)
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	s, err := b.staticShape(x, c.n.Name, "GridGenerator")
	if err != nil {
		return nil, err
	}
	if len(s) != 2 || s[1] != 6 {
		return nil, c.errf("data has shape %v, want (N, 6)", s)
	}
	th := b.fresh(c.n.Name + "_theta")
	if err := b.emit(th, &canon.Reshape{Shape: []int64{s[0], 2, 3}}, []string{x}, th); err != nil {
		return nil, err
	}
	g := b.fresh(c.n.Name + "_grid")
	if err := b.emit(g, &canon.AffineGrid{AlignCorners: true, Size: []int64{s[0], 1, ts[0], ts[1]}}, []string{th}, g); err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Transpose{Perm: []int64{0, 3, 1, 2}}, []string{g}, out)
}
