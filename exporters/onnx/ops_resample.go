package onnxexport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
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
		return err
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
	x := b.types[n.Inputs[0]]
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
		if !x.RankKnown || in(n, 1) != "" || in(n, 2) != "" || in(n, 3) != "" {
			return b.needOpset(n, "Resize with axes (and parameters computed at run time or an input of unknown rank)", 18)
		}
		r := len(x.Shape)
		axes, err := op.ResizeAxes(r)
		if err != nil {
			return b.opError(n, "%v", err)
		}
		if op.Sizes != nil {
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
		} else {
			full := make([]float32, r)
			for i := range full {
				full[i] = 1
			}
			for i, a := range axes {
				full[a] = op.Scales[i]
			}
			op.Scales = full
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
		op.Axes = nil
	}
	return nil
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
