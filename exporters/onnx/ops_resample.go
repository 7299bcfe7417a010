package onnxexport

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The resampling family. Resize-11 has every mode and coordinate transform
// but tf_half_pixel_for_nn (gone at 13), half_pixel_symmetric (19),
// antialias, axes and keep_aspect_ratio_policy (18).

func (b *builder) resize(n *canon.Node, op *canon.Resize) error {
	dynScales, dynSizes, dynRoi := in(n, 1), in(n, 2), in(n, 3)
	if err := b.dynamicParams(n, 11); err != nil {
		return err
	}
	eff := *op
	if err := b.resizeForOpset(n, &eff); err != nil {
		if op.Antialias || op.KeepAspect != canon.Stretch || op.CoordTransform == canon.HalfPixelSymmetric {
			if done, err2 := b.resizeAsMatMuls(n, op); done || err2 != nil {
				return err2
			}
		}
		return err
	}
	if op.Axes != nil && eff.Axes == nil && b.opset < 18 {
		// Run-time parameters of some axes, widened to every axis.
		dynScales, dynSizes, dynRoi = b.widenResizeParams(n, op, dynScales, dynSizes, dynRoi)
	}
	op = &eff
	// Opsets 11 and 12 have no optional roi/scales inputs: absent ones are
	// empty tensors there.
	roi, scales, sizes := "", "", ""
	switch {
	case dynRoi != "":
		roi = dynRoi
	case op.Roi != nil:
		roi = b.f32Param(n, "roi", []int64{int64(len(op.Roi))}, op.Roi)
	case op.CoordTransform == canon.TFCropAndResize:
		// ONNX needs the roi for this transform; the default is the whole input.
		k := len(op.Scales) + len(op.Sizes)
		full := make([]float32, 2*k)
		for i := k; i < 2*k; i++ {
			full[i] = 1
		}
		roi = b.f32Param(n, "roi", []int64{int64(2 * k)}, full)
	case b.opset < 13:
		roi = b.f32Param(n, "roi", []int64{0}, nil)
	}
	switch {
	case dynScales != "":
		scales = dynScales
	case len(op.Scales) > 0:
		scales = b.f32Param(n, "scales", []int64{int64(len(op.Scales))}, op.Scales)
	default:
		if b.opset < 13 {
			scales = b.f32Param(n, "scales", []int64{0}, nil)
		}
		sizes = dynSizes
		if sizes == "" {
			sizes = b.i64Param(n, "sizes", op.Sizes)
		}
	}
	ins := []string{n.Inputs[0], roi, scales, sizes}
	for len(ins) > 1 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	attrs := []*onnxpb.AttributeProto{
		attrString("mode", op.Mode.String()),
		attrString("coordinate_transformation_mode", op.CoordTransform.String()),
	}
	switch op.Mode {
	case canon.ResizeNearest:
		attrs = append(attrs, attrString("nearest_mode", op.Nearest.String()))
	case canon.ResizeCubic:
		attrs = append(attrs, attrFloat("cubic_coeff_a", op.CubicCoeffA))
	}
	if op.ExcludeOutside {
		attrs = append(attrs, attrInt("exclude_outside", 1))
	}
	if op.CoordTransform == canon.TFCropAndResize && op.ExtrapolationValue != 0 {
		attrs = append(attrs, attrFloat("extrapolation_value", op.ExtrapolationValue))
	}
	if op.Antialias {
		attrs = append(attrs, attrInt("antialias", 1))
	}
	if op.Axes != nil {
		attrs = append(attrs, attrInts("axes", op.Axes))
	}
	if op.KeepAspect != canon.Stretch {
		attrs = append(attrs, attrString("keep_aspect_ratio_policy", op.KeepAspect.String()))
	}
	b.emit(n.Name, "Resize", ins, n.Outputs, attrs...)
	return nil
}

// resizeForOpset rewrites op into what the target opset has, exactly, or
// refuses naming the opset that has it.
func (b *builder) resizeForOpset(n *canon.Node, op *canon.Resize) error {
	x := b.types.Get(n.Inputs[0])
	if op.CoordTransform == canon.TFHalfPixelForNN && b.opset >= 13 {
		// (x+0.5)/scale rounded equals half_pixel's (x+0.5)/scale - 0.5
		// rounded up (prefer-floor) or rounded half up (floor).
		switch {
		case op.Mode == canon.ResizeNearest && op.Nearest == canon.RoundPreferFloor:
			op.CoordTransform, op.Nearest = canon.HalfPixel, canon.Ceil
		case op.Mode == canon.ResizeNearest && op.Nearest == canon.Floor:
			op.CoordTransform, op.Nearest = canon.HalfPixel, canon.RoundPreferCeil
		default:
			return b.opError(n, "coordinate_transformation_mode tf_half_pixel_for_nn with mode %s and nearest_mode %s exists only in opsets 11 and 12 (the target is opset %d); choose opset 11 or 12", op.Mode, op.Nearest, b.opset)
		}
	}
	if op.CoordTransform == canon.HalfPixelSymmetric && b.opset < 19 && halfPixelSymmetricIsHalfPixel(op, x) {
		op.CoordTransform = canon.HalfPixel
	}
	if b.opset >= 18 {
		if op.CoordTransform == canon.HalfPixelSymmetric && b.opset < 19 {
			return b.needOpset(n, "Resize with coordinate_transformation_mode half_pixel_symmetric (scales that do not give whole output sizes)", 19)
		}
		return nil
	}
	switch {
	case op.CoordTransform == canon.HalfPixelSymmetric:
		return b.needOpset(n, "Resize with coordinate_transformation_mode half_pixel_symmetric (scales that do not give whole output sizes)", 19)
	case op.Antialias:
		return b.needOpset(n, "Resize with antialias", 18)
	case op.KeepAspect != canon.Stretch:
		return b.needOpset(n, "Resize with keep_aspect_ratio_policy "+op.KeepAspect.String(), 18)
	case op.Axes != nil:
		// Resize every axis: scale 1 (or the input size, and roi 0..1) on
		// the others.
		if !x.RankKnown {
			return b.needOpset(n, "Resize with axes on an input of unknown rank", 18)
		}
		r := len(x.Shape)
		axes, err := op.ResizeAxes(r)
		if err != nil {
			return b.opError(n, "%v", err)
		}
		if op.Roi != nil {
			full := make([]float32, 2*r)
			for i := r; i < 2*r; i++ {
				full[i] = 1
			}
			for i, a := range axes {
				full[a], full[r+a] = op.Roi[i], op.Roi[len(axes)+i]
			}
			op.Roi = full
		}
		switch {
		case op.Sizes != nil:
			full := make([]int64, r)
			for i, d := range x.Shape {
				if !d.Known() {
					return b.needOpset(n, "Resize with axes on an input whose other axes have unknown sizes", 18)
				}
				full[i] = d.Size
			}
			for i, a := range axes {
				full[a] = op.Sizes[i]
			}
			op.Sizes = full
		case op.Scales != nil:
			full := make([]float32, r)
			for i := range full {
				full[i] = 1
			}
			for i, a := range axes {
				full[a] = op.Scales[i]
			}
			op.Scales = full
		}
		// Run-time parameters are widened by widenResizeParams.
		op.Axes = nil
	}
	return nil
}

// resizeAsMatMuls writes a Resize the target opset's Resize cannot
// express (antialias, keep_aspect_ratio_policy, half_pixel_symmetric) as
// one MatMul per resized axis by the matrix of its taps, which is exact as
// Resize is separable. It needs constant parameters, a static float32
// input and no extrapolated points; done is false when it does not apply.
func (b *builder) resizeAsMatMuls(n *canon.Node, op *canon.Resize) (done bool, err error) {
	x := n.Inputs[0]
	shape, ok := b.types.Get(x).StaticShape()
	if !ok || b.dtype(x) != canon.Float32 || in(n, 1) != "" || in(n, 2) != "" || in(n, 3) != "" {
		return false, nil
	}
	p, err := op.Plan(shape)
	if err != nil {
		return false, nil
	}
	r := len(shape)
	type axisMatrix struct {
		axis int
		m    []float32 // out×in
	}
	var mats []axisMatrix
	for a := range r {
		in, out := shape[a], p.Out[a]
		rs, re := 0.0, 1.0
		if p.RoiStart != nil {
			rs, re = p.RoiStart[a], p.RoiEnd[a]
		}
		m := make([]float32, out*in)
		identity := in == out
		for o := range out {
			taps, outside := op.Taps(o, in, out, p.Scales[a], rs, re)
			if outside {
				return false, nil
			}
			for _, t := range taps {
				m[o*in+t.Index] += float32(t.Weight)
			}
			for i := range in {
				want := float32(0)
				if i == o {
					want = 1
				}
				if m[o*in+i] != want {
					identity = false
				}
			}
		}
		if !identity {
			mats = append(mats, axisMatrix{a, m})
		}
	}
	b.expanded = true
	pre := prefix(n)
	cur, curShape := x, append([]int64(nil), shape...)
	for k, am := range mats {
		a := am.axis
		in, out := curShape[a], p.Out[a]
		last := k == len(mats)-1
		next := b.unique(pre + "_axis")
		if last {
			next = n.Outputs[0]
		}
		name := b.unique(pre + "_matmul")
		if last {
			name = n.Name
		}
		if a == r-1 {
			mt := make([]float32, in*out) // in×out
			for o := range out {
				for i := range in {
					mt[i*out+o] = am.m[o*in+i]
				}
			}
			b.emit(name, "MatMul", []string{cur, b.f32Param(n, "weights", []int64{in, out}, mt)}, []string{next})
		} else {
			rest := int64(1)
			for _, d := range curShape[a+1:] {
				rest *= d
			}
			view := b.unique(pre + "_view")
			b.emit(b.unique(pre+"_reshape"), "Reshape", []string{cur, b.i64Param(n, "view", append(append([]int64(nil), curShape[:a]...), in, rest))}, []string{view})
			prod := b.unique(pre + "_prod")
			b.emit(b.unique(pre+"_matmul"), "MatMul", []string{b.f32Param(n, "weights", []int64{out, in}, am.m), view}, []string{prod})
			curShape[a] = out
			b.emit(name, "Reshape", []string{prod, b.i64Param(n, "shape", append([]int64(nil), curShape...))}, []string{next})
		}
		curShape[a] = out
		cur = next
	}
	if len(mats) == 0 {
		b.emit(n.Name, "Identity", []string{x}, n.Outputs)
	}
	return true, nil
}

// widenResizeParams turns run-time scales, sizes and roi of op.Axes into
// ones for every axis: Gather from the parameter followed by the values
// of the other axes (scale 1, the input's size, roi 0..1).
func (b *builder) widenResizeParams(n *canon.Node, op *canon.Resize, scales, sizes, roi string) (string, string, string) {
	r := b.rank(n.Inputs[0])
	axes, _ := op.ResizeAxes(r)
	k := len(axes)
	pos := make([]int64, r)
	for i := range pos {
		pos[i] = -1
	}
	for i, a := range axes {
		pos[a] = int64(i)
	}
	pre := prefix(n)
	gather := func(param string, rest string, idx []int64) string {
		all := b.unique(pre + "_params")
		b.emit(b.unique(pre+"_concat"), "Concat", []string{param, rest}, []string{all}, attrInt("axis", 0))
		out := b.unique(pre + "_full")
		b.emit(b.unique(pre+"_gather"), "Gather", []string{all, b.i64Param(n, "index", idx)}, []string{out}, attrInt("axis", 0))
		return out
	}
	if scales != "" {
		idx := make([]int64, r)
		for a := range idx {
			idx[a] = int64(k)
			if pos[a] >= 0 {
				idx[a] = pos[a]
			}
		}
		scales = gather(scales, b.f32Param(n, "one", []int64{1}, []float32{1}), idx)
	}
	if sizes != "" {
		shape := b.unique(pre + "_shape")
		b.emit(b.unique(pre+"_shape_op"), "Shape", []string{n.Inputs[0]}, []string{shape})
		idx := make([]int64, r)
		for a := range idx {
			idx[a] = int64(k + a)
			if pos[a] >= 0 {
				idx[a] = pos[a]
			}
		}
		sizes = gather(sizes, shape, idx)
	}
	if roi != "" {
		idx := make([]int64, 2*r)
		for a := range r {
			idx[a], idx[r+a] = int64(2*k), int64(2*k+1)
			if pos[a] >= 0 {
				idx[a], idx[r+a] = pos[a], int64(k)+pos[a]
			}
		}
		roi = gather(roi, b.f32Param(n, "roi_rest", []int64{2}, []float32{0, 1}), idx)
	}
	b.expanded = true
	return scales, sizes, roi
}

// halfPixelSymmetricIsHalfPixel reports whether half_pixel_symmetric maps
// like half_pixel: when every output size is exactly input size × scale
// (always, for sizes).
func halfPixelSymmetricIsHalfPixel(op *canon.Resize, x canon.ValueInfo) bool {
	if op.Sizes != nil && op.KeepAspect == canon.Stretch {
		return true
	}
	if op.Scales == nil || !x.RankKnown {
		return false
	}
	axes, err := op.ResizeAxes(len(x.Shape))
	if err != nil {
		return false
	}
	for i, a := range axes {
		d := x.Shape[a]
		if !d.Known() {
			return false
		}
		f := float64(d.Size) * float64(op.Scales[i])
		if f != math.Floor(f) {
			return false
		}
	}
	return true
}

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"GridSample": {onnx: "GridSample", native: 16, below: "its definition in Gather, Floor, Where and arithmetic (static shapes)", write: writeGridSample},
		"AffineGrid": {onnx: "AffineGrid", native: 20, below: "Transpose and a MatMul by the constant base grid (constant size)", write: writeAffineGrid},
		"Col2Im":     {onnx: "Col2Im", native: 18, below: "a grouped ConvTranspose with one-hot kernels (constant shapes)", write: writeCol2Im},
	})
}

// writeGridSample: GridSample-16 to 19 take 4-D input and name the modes
// bilinear and bicubic; 20 renamed them and allowed any rank. Other
// inputs are written as the op's definition (ops_resample_grid.go).
func writeGridSample(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.GridSample)
	mode := op.Mode.String()
	// ONNX Runtime's bicubic border sampling clamps each tap, not the
	// point as ONNX's definition does: write the definition.
	cubicBorder := op.Mode == canon.ResizeCubic && op.Padding == canon.GridBorder
	if b.opset < 16 || (b.opset < 20 && b.rank(n.Inputs[0]) != 4) || cubicBorder {
		return b.gridSampleBelow16(n, op)
	}
	if b.opset < 20 {
		mode = map[canon.ResizeMode]string{canon.ResizeNearest: "nearest", canon.ResizeLinear: "bilinear", canon.ResizeCubic: "bicubic"}[op.Mode]
	}
	align := int64(0)
	if op.AlignCorners {
		align = 1
	}
	b.emit(n.Name, "GridSample", n.Inputs, n.Outputs, attrString("mode", mode),
		attrString("padding_mode", op.Padding.String()), attrInt("align_corners", align))
	return nil
}

func writeAffineGrid(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.AffineGrid)
	align := int64(0)
	if op.AlignCorners {
		align = 1
	}
	// ONNX Runtime samples an axis of size 1 at +1 with align_corners,
	// ONNX's definition at -1: write the definition then.
	single := false
	if op.AlignCorners && op.Size != nil {
		for _, d := range op.Size[2:] {
			single = single || d == 1
		}
	}
	if b.opset >= 20 && !(single && b.dtype(n.Inputs[0]) == canon.Float32) {
		size := in(n, 1)
		if size == "" {
			size = b.i64Param(n, "size", op.Size)
		}
		b.emit(n.Name, "AffineGrid", []string{n.Inputs[0], size}, n.Outputs, attrInt("align_corners", align))
		return nil
	}
	if op.Size == nil {
		return b.needOpset(n, "AffineGrid with a size computed at run time", 20)
	}
	if dt := b.dtype(n.Inputs[0]); dt != canon.Float32 {
		return b.needOpset(n, fmt.Sprintf("AffineGrid on %s theta (the expansion is float32)", dt), 20)
	}
	// Y = base · Thetaᵀ: base holds (x, y[, z], 1) per output point, x
	// along the last axis.
	k := len(op.Size) - 2
	sp := op.Size[2:]
	points := canon.NumElements(sp)
	base := make([]float32, 0, points*int64(k+1))
	idx := make([]int64, k)
	for p := int64(0); p < points; p++ {
		for a := range k {
			base = append(base, float32(affineBase(idx[k-1-a], sp[k-1-a], op.AlignCorners)))
		}
		base = append(base, 1)
		for a := k - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < sp[a] {
				break
			}
			idx[a] = 0
		}
	}
	b.expanded = true
	p := prefix(n)
	thT := b.unique(p + "_theta_t")
	b.emit(b.unique(p+"_transpose"), "Transpose", []string{n.Inputs[0]}, []string{thT}, attrInts("perm", []int64{0, 2, 1}))
	flat := b.unique(p + "_flat")
	b.emit(b.unique(p+"_matmul"), "MatMul", []string{b.f32Param(n, "base", []int64{1, points, int64(k + 1)}, base), thT}, []string{flat})
	shape := append(append([]int64{op.Size[0]}, sp...), int64(k))
	b.emit(n.Name, "Reshape", []string{flat, b.i64Param(n, "shape", shape)}, n.Outputs)
	return nil
}

// affineBase is the normalized coordinate of index i of d points.
func affineBase(i, d int64, align bool) float64 {
	if align {
		if d <= 1 {
			return -1 // ONNX's arange(-1, 1, 2/(d-1)) starts at -1; torch uses 0
		}
		return -1 + 2*float64(i)/float64(d-1)
	}
	return (2*float64(i)+1)/float64(d) - 1
}

func writeCol2Im(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Col2Im)
	if b.opset >= 18 {
		image, block := in(n, 1), in(n, 2)
		if image == "" {
			image = b.i64Param(n, "image_shape", op.ImageShape)
		}
		if block == "" {
			block = b.i64Param(n, "block_shape", op.BlockShape)
		}
		var attrs []*onnxpb.AttributeProto
		if op.Strides != nil {
			attrs = append(attrs, attrInts("strides", op.Strides))
		}
		if op.Dilations != nil {
			attrs = append(attrs, attrInts("dilations", op.Dilations))
		}
		if op.PadsBegin != nil || op.PadsEnd != nil {
			k := len(op.PadsBegin) + len(op.PadsEnd)
			pads := make([]int64, 0, k)
			pb, pe := op.PadsBegin, op.PadsEnd
			if pb == nil {
				pb = make([]int64, len(pe))
			}
			if pe == nil {
				pe = make([]int64, len(pb))
			}
			attrs = append(attrs, attrInts("pads", append(append(pads, pb...), pe...)))
		}
		b.emit(n.Name, "Col2Im", []string{n.Inputs[0], image, block}, n.Outputs, attrs...)
		return nil
	}
	// Below 18: each channel's K = ∏block rows are K one-hot kernels of a
	// ConvTranspose over the block grid, grouped by channel; output padding
	// restores the rows and columns no block reaches.
	if op.ImageShape == nil || op.BlockShape == nil {
		return b.needOpset(n, "Col2Im with shapes computed at run time", 18)
	}
	xs, ok := b.types.Get(n.Inputs[0]).StaticShape()
	if !ok || b.dtype(n.Inputs[0]) != canon.Float32 {
		return b.needOpset(n, "Col2Im on an input without a static shape or not float32 (the expansion needs both)", 18)
	}
	p, err := op.Plan(op.ImageShape, op.BlockShape)
	if err != nil {
		return b.opError(n, "%v", err)
	}
	if len(xs) != 3 || xs[1]%p.BlockSize != 0 || xs[2] != p.L {
		return b.opError(n, "input has shape %v; want (N, C·%d, %d)", xs, p.BlockSize, p.L)
	}
	K, ch := p.BlockSize, xs[1]/p.BlockSize
	k := len(op.ImageShape)
	w := make([]float32, xs[1]*K)
	for row := int64(0); row < xs[1]; row++ {
		w[row*K+row%K] = 1
	}
	outPad := make([]int64, k)
	for a := range k {
		reached := (p.Blocks[a]-1)*p.Strides[a] + p.Dilations[a]*(op.BlockShape[a]-1) + 1
		outPad[a] = op.ImageShape[a] + p.PadsBegin[a] + p.PadsEnd[a] - reached
	}
	b.expanded = true
	pre := prefix(n)
	grid := b.unique(pre + "_blocks")
	b.emit(b.unique(pre+"_reshape"), "Reshape", []string{n.Inputs[0], b.i64Param(n, "grid", append([]int64{xs[0], xs[1]}, p.Blocks...))}, []string{grid})
	wName := b.f32Param(n, "onehot", append([]int64{xs[1], 1}, op.BlockShape...), w)
	b.emit(n.Name, "ConvTranspose", []string{grid, wName}, n.Outputs,
		attrInts("kernel_shape", op.BlockShape), attrInts("strides", p.Strides), attrInts("dilations", p.Dilations),
		attrInts("pads", append(append([]int64(nil), p.PadsBegin...), p.PadsEnd...)), attrInts("output_padding", outPad),
		attrInt("group", ch))
	return nil
}
