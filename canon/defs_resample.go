package canon

import (
	"fmt"
	"math"
)

// The resampling family. Resize follows ONNX Resize-19: for each resized
// axis an output index x maps to an input coordinate x' by CoordTransform;
// Mode then weighs the input points around x' (nearest: one point chosen by
// Nearest; linear: two; cubic: four, or more with Antialias when
// downsampling). Axes combine separably.

// ResizeMode is how Resize weighs the input points around a coordinate.
type ResizeMode uint8

const (
	ResizeNearest ResizeMode = iota
	ResizeLinear
	ResizeCubic
)

var resizeModeNames = [...]string{ResizeNearest: "nearest", ResizeLinear: "linear", ResizeCubic: "cubic"}

func (m ResizeMode) String() string {
	if int(m) < len(resizeModeNames) {
		return resizeModeNames[m]
	}
	return fmt.Sprintf("ResizeMode(%d)", m)
}

// AspectPolicy says how Resize turns Sizes into scales (ONNX
// keep_aspect_ratio_policy): Stretch scales each axis to its size;
// NotLarger and NotSmaller use one scale for all resized axes, the
// smallest (largest) of size/input, so the output fits inside (covers)
// Sizes.
type AspectPolicy uint8

const (
	Stretch AspectPolicy = iota
	NotLarger
	NotSmaller
)

var aspectNames = [...]string{Stretch: "stretch", NotLarger: "not_larger", NotSmaller: "not_smaller"}

func (p AspectPolicy) String() string {
	if int(p) < len(aspectNames) {
		return aspectNames[p]
	}
	return fmt.Sprintf("AspectPolicy(%d)", p)
}

// ResizePlan is a Resize resolved against one input shape, every entry per
// axis of the input.
type ResizePlan struct {
	Out []int64
	// Scales is the scale each axis' coordinate transform divides by (1 on
	// axes not resized).
	Scales []float64
	// RoiStart and RoiEnd bound the region TFCropAndResize samples
	// (normalized; 0 and 1 on axes not resized); nil for other transforms.
	RoiStart, RoiEnd []float64
}

// ResizeAxes returns the resized axes, normalized, for an input of rank r.
func (o *Resize) ResizeAxes(r int) ([]int, error) {
	if o.Axes == nil {
		out := make([]int, r)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	seen := make([]bool, r)
	out := make([]int, len(o.Axes))
	for i, a := range o.Axes {
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || a >= int64(r) || seen[a] {
			return nil, fmt.Errorf("axes %v: axis %d is out of range or repeated for rank %d", o.Axes, o.Axes[i], r)
		}
		seen[a] = true
		out[i] = int(a)
	}
	return out, nil
}

// Plan resolves the op (with Scales or Sizes, and Roi when the transform
// needs it, set as attributes) against input shape in.
func (o *Resize) Plan(in []int64) (ResizePlan, error) {
	r := len(in)
	axes, err := o.ResizeAxes(r)
	if err != nil {
		return ResizePlan{}, err
	}
	p := ResizePlan{Out: append([]int64(nil), in...), Scales: make([]float64, r)}
	for i := range p.Scales {
		p.Scales[i] = 1
	}
	switch {
	case o.Scales != nil:
		if len(o.Scales) != len(axes) {
			return ResizePlan{}, fmt.Errorf("has %d scales for %d resized axes of shape %v", len(o.Scales), len(axes), in)
		}
		for i, a := range axes {
			s := float64(o.Scales[i])
			if !(s > 0) || math.IsInf(s, 0) {
				return ResizePlan{}, fmt.Errorf("scales %v: scale %v is not finite and > 0", o.Scales, s)
			}
			f := math.Floor(float64(in[a]) * s)
			if f > math.MaxInt32 {
				return ResizePlan{}, fmt.Errorf("axis %d: %d * scale %g overflows", a, in[a], s)
			}
			p.Scales[a], p.Out[a] = s, int64(f)
		}
	case o.Sizes != nil:
		if len(o.Sizes) != len(axes) {
			return ResizePlan{}, fmt.Errorf("has %d sizes for %d resized axes of shape %v", len(o.Sizes), len(axes), in)
		}
		for i, a := range axes {
			if o.Sizes[i] < 0 || o.Sizes[i] > math.MaxInt32 {
				return ResizePlan{}, fmt.Errorf("sizes %v: invalid size %d", o.Sizes, o.Sizes[i])
			}
			if in[a] == 0 {
				if o.Sizes[i] != 0 {
					return ResizePlan{}, fmt.Errorf("cannot resize empty axis %d to %d", a, o.Sizes[i])
				}
				continue
			}
			p.Scales[a], p.Out[a] = float64(o.Sizes[i])/float64(in[a]), o.Sizes[i]
		}
		if o.KeepAspect != Stretch && len(axes) > 0 {
			s := p.Scales[axes[0]]
			for _, a := range axes[1:] {
				if o.KeepAspect == NotLarger {
					s = min(s, p.Scales[a])
				} else {
					s = max(s, p.Scales[a])
				}
			}
			for _, a := range axes {
				p.Scales[a] = s
				// ONNX rounds half up here.
				p.Out[a] = int64(math.Floor(s*float64(in[a]) + 0.5))
			}
		}
	default:
		return ResizePlan{}, fmt.Errorf("neither scales nor sizes is given")
	}
	if o.CoordTransform == TFCropAndResize {
		p.RoiStart, p.RoiEnd = make([]float64, r), make([]float64, r)
		for i := range p.RoiEnd {
			p.RoiEnd[i] = 1
		}
		if o.Roi != nil {
			if len(o.Roi) != 2*len(axes) {
				return ResizePlan{}, fmt.Errorf("roi %v: want %d values (starts then ends of the %d resized axes)", o.Roi, 2*len(axes), len(axes))
			}
			for i, a := range axes {
				p.RoiStart[a], p.RoiEnd[a] = float64(o.Roi[i]), float64(o.Roi[len(axes)+i])
			}
		}
	}
	return p, nil
}

// SourceCoord maps output index x of an axis (input length in, output
// length out, scale, roi bounds) to an input coordinate, and reports
// whether it lies outside the input (TFCropAndResize's extrapolation).
func (o *Resize) SourceCoord(x, in, out int64, scale, roiStart, roiEnd float64) (float64, bool) {
	fx, fin, fout := float64(x), float64(in), float64(out)
	switch o.CoordTransform {
	case Asymmetric:
		return fx / scale, false
	case AlignCorners:
		if out <= 1 {
			return 0, false
		}
		return fx * (fin - 1) / (fout - 1), false
	case PytorchHalfPixel:
		if out <= 1 {
			return 0, false
		}
		return (fx+0.5)/scale - 0.5, false
	case TFHalfPixelForNN:
		return (fx + 0.5) / scale, false
	case HalfPixelSymmetric:
		adj := fout / (scale * fin)
		return fin/2*(1-adj) + (fx+0.5)/scale - 0.5, false
	case TFCropAndResize:
		var c float64
		if out <= 1 {
			c = (roiEnd - roiStart) * (fin - 1) / 2
		} else {
			c = fx * (roiEnd - roiStart) * (fin - 1) / (fout - 1)
		}
		c += roiStart * (fin - 1)
		return c, c < 0 || c > fin-1
	}
	return (fx+0.5)/scale - 0.5, false
}

// Tap is one input point a resampled output point reads, with its weight.
type Tap struct {
	Index  int64
	Weight float64
}

// Taps lists the input points (clamped to the input, as ONNX pads the
// edges) and weights of output index x along one axis; outside is true
// when the point takes ExtrapolationValue instead.
func (o *Resize) Taps(x, in, out int64, scale, roiStart, roiEnd float64) (taps []Tap, outside bool) {
	c, outside := o.SourceCoord(x, in, out, scale, roiStart, roiEnd)
	if outside || in == 0 {
		return nil, true
	}
	clamp := func(i int64) int64 { return min(max(i, 0), in-1) }
	if o.Mode == ResizeNearest {
		return []Tap{{clamp(int64(o.roundNearest(c))), 1}}, false
	}
	// The points left of c (the one at c counting as left) and right of it.
	base := math.Floor(c)
	ratio := c - base
	if ratio == 0 {
		base, ratio = base-1, 1
	}
	ws := o.kernelWeights(ratio, scale)
	n := int64(len(ws))
	first := int64(base) - n/2 + 1
	taps = make([]Tap, n)
	sum := 0.0
	for j := range taps {
		i := first + int64(j)
		w := ws[j]
		if o.ExcludeOutside && (i < 0 || i >= in) {
			w = 0
		}
		sum += w
		taps[j] = Tap{clamp(i), w}
	}
	if o.ExcludeOutside && sum != 0 {
		for j := range taps {
			taps[j].Weight /= sum
		}
	}
	return taps, false
}

func (o *Resize) roundNearest(c float64) float64 {
	frac := c - math.Floor(c)
	switch o.Nearest {
	case RoundPreferCeil:
		if frac == 0.5 {
			return math.Ceil(c)
		}
		return math.Round(c)
	case Floor:
		return math.Floor(c)
	case Ceil:
		return math.Ceil(c)
	}
	if frac == 0.5 {
		return math.Floor(c)
	}
	return math.Round(c)
}

// kernelWeights are the weights of the points base-n/2+1 ... base+n/2
// around a coordinate ratio (in (0, 1]) past point base.
func (o *Resize) kernelWeights(ratio, scale float64) []float64 {
	a := float64(o.CubicCoeffA)
	if !o.Antialias {
		if o.Mode == ResizeLinear {
			return []float64{1 - ratio, ratio}
		}
		r1, r2 := ratio+1, 2-ratio
		q := 1 - ratio
		return []float64{
			((a*r1-5*a)*r1+8*a)*r1 - 4*a,
			((a+2)*ratio-(a+3))*ratio*ratio + 1,
			((a+2)*q-(a+3))*q*q + 1,
			((a*r2-5*a)*r2+8*a)*r2 - 4*a,
		}
	}
	// Antialiasing stretches the kernel by 1/scale when downsampling and
	// normalizes the taps.
	scale = min(scale, 1)
	support := 1.0
	if o.Mode == ResizeCubic {
		support = 2
	}
	start := int(math.Floor(-support/scale) + 1)
	n := 2 - 2*start
	ws := make([]float64, n)
	sum := 0.0
	for j := range ws {
		t := math.Abs(scale * (float64(start+j) - ratio))
		var w float64
		if o.Mode == ResizeLinear {
			w = max(0, 1-t)
		} else {
			switch {
			case t <= 1:
				w = ((a+2)*t-(a+3))*t*t + 1
			case t < 2:
				w = ((a*t-5*a)*t+8*a)*t - 4*a
			}
		}
		ws[j] = w
		sum += w
	}
	for j := range ws {
		ws[j] /= sum
	}
	return ws
}

// resizeInfer is the output of a Resize whose Scales or Sizes are known.
func (c *InferCtx) resizeInfer(op *Resize) (ValueInfo, error) {
	x := c.in[0]
	if op.Mode != ResizeNearest && x.DType != Undefined && !x.DType.IsFloat() {
		return ValueInfo{}, c.errf("input %q is %s: %s Resize takes floating-point tensors only", c.n.Inputs[0], x.DType, op.Mode)
	}
	if !x.RankKnown {
		if op.Axes == nil && op.Sizes != nil && op.KeepAspect == Stretch {
			return shaped(x.DType, DimsOf(op.Sizes...)), nil
		}
		if op.Axes == nil {
			return shaped(x.DType, unknownDims(max(len(op.Scales), len(op.Sizes)))), nil
		}
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape)
	axes, err := op.ResizeAxes(r)
	if err != nil {
		return ValueInfo{}, c.errf("%v", err)
	}
	if n := max(len(op.Scales), len(op.Sizes)); n != len(axes) {
		return ValueInfo{}, c.errf("has %d scales/sizes but input X has shape %s; want one per resized axis (%d)", n, fmtShape(x), len(axes))
	}
	in := make([]int64, r)
	allKnown := true
	for i, d := range x.Shape {
		in[i] = d.Size
		if !d.Known() {
			allKnown = false
			in[i] = 1
		}
	}
	p, err := op.Plan(in)
	if err != nil {
		return ValueInfo{}, c.errf("%v", err)
	}
	out := make([]Dim, r)
	for i, d := range x.Shape {
		out[i] = d
	}
	for i, a := range axes {
		switch {
		case allKnown:
			out[a] = knownDim(p.Out[a])
		case op.Sizes != nil && op.KeepAspect == Stretch:
			out[a] = knownDim(op.Sizes[i])
		case !x.Shape[a].Known() || op.KeepAspect != Stretch:
			out[a] = unknownDim
		default:
			out[a] = knownDim(p.Out[a])
		}
	}
	return shaped(x.DType, out), nil
}

func checkResizeModes(c *CheckCtx, op *Resize) error {
	if int(op.Mode) >= len(resizeModeNames) || int(op.KeepAspect) >= len(aspectNames) {
		return c.Errorf("unknown mode %d or keep-aspect policy %d", op.Mode, op.KeepAspect)
	}
	if op.Antialias && op.Mode == ResizeNearest {
		return c.Errorf("antialias applies to linear and cubic modes only")
	}
	if op.Roi != nil && op.CoordTransform != TFCropAndResize {
		return c.Errorf("Roi %v is used by the tf_crop_and_resize transform only", op.Roi)
	}
	if op.KeepAspect != Stretch && (op.Scales != nil || c.HasInput(1)) {
		return c.Errorf("keep-aspect policy %s applies to Sizes only", op.KeepAspect)
	}
	for _, v := range op.Roi {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return c.Errorf("Roi %v must be finite", op.Roi)
		}
	}
	return nil
}

// concatFloatParams joins 1-D float32 constants of at most maxConstElems
// elements in all: how exporters spell Resize scales (Concat of [1, 1] and
// the spatial scales), which importers then read as constant parameters.
func (c *InferCtx) concatFloatParams(out []Dim) *Tensor {
	s, ok := staticSmall(out)
	if !ok || len(s) != 1 {
		return nil
	}
	var data []byte
	for _, v := range c.in {
		t := v.Const
		if t == nil || t.DType != Float32 || len(t.Shape) != 1 || t.CheckData() != nil {
			return nil
		}
		data = append(data, t.Data...)
	}
	if int64(len(data)) != 4*s[0] {
		return nil
	}
	return &Tensor{Name: c.outName(0), DType: Float32, Shape: s, Data: data}
}
