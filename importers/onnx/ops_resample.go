package onnximport

import (
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The resampling family: Upsample, Resize.

var resizeModes = map[string]canon.ResizeMode{"nearest": canon.ResizeNearest, "linear": canon.ResizeLinear, "cubic": canon.ResizeCubic}

var coordModes = map[string]canon.CoordTransform{
	"half_pixel": canon.HalfPixel, "asymmetric": canon.Asymmetric, "align_corners": canon.AlignCorners,
	"pytorch_half_pixel": canon.PytorchHalfPixel, "tf_half_pixel_for_nn": canon.TFHalfPixelForNN,
	"half_pixel_symmetric": canon.HalfPixelSymmetric, "tf_crop_and_resize": canon.TFCropAndResize,
}

var nearestModes = map[string]canon.NearestMode{
	"round_prefer_floor": canon.RoundPreferFloor, "round_prefer_ceil": canon.RoundPreferCeil,
	"floor": canon.Floor, "ceil": canon.Ceil,
}

var aspectPolicies = map[string]canon.AspectPolicy{"stretch": canon.Stretch, "not_larger": canon.NotLarger, "not_smaller": canon.NotSmaller}

// oldResizeMode reads the mode of Upsample and Resize-10, which map output
// index i to i / scale (asymmetric) and round nearest points down.
func (c *nodeCtx) oldResizeMode() (*canon.Resize, bool) {
	mode := c.str("mode", "nearest")
	op := &canon.Resize{CoordTransform: canon.Asymmetric, Nearest: canon.Floor}
	switch mode {
	case "nearest":
	case "linear", "bilinear":
		op.Mode = canon.ResizeLinear
	default:
		c.fail("mode %q is not supported (supported: nearest, linear)", mode)
		return nil, false
	}
	return op, true
}

func convUpsample(c *nodeCtx) error {
	op, ok := c.oldResizeMode()
	if !ok {
		return c.err
	}
	var scales []float32
	if c.im.opset < 9 {
		scales = c.floats("scales")
		if scales == nil {
			c.fail("the scales attribute is required")
		}
	} else if c.dynamic(1) {
		return c.emit(op, []string{c.in(0), c.in(1)}, c.out1())
	} else if v, ok := c.constFloats(1, "Upsample scales"); ok {
		scales = toF32(v)
	} else if c.err == nil {
		c.fail("the scales input is required")
	}
	op.Scales = scales
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convResize(c *nodeCtx) error {
	if c.im.opset < 11 {
		op, ok := c.oldResizeMode()
		if !ok {
			return c.err
		}
		if c.dynamic(1) {
			return c.emit(op, []string{c.in(0), c.in(1)}, c.out1())
		}
		v, ok := c.constFloats(1, "Resize scales")
		if !ok && c.err == nil {
			c.fail("the scales input is required")
		}
		op.Scales = toF32(v)
		return c.emit(op, []string{c.in(0)}, c.out1())
	}
	op := &canon.Resize{}
	if err := c.resizeAttrs(op); err != nil {
		return err
	}
	// Scales, sizes or roi computed at run time stay inputs; a constant
	// empty tensor (how opsets 11-12 leave scales out) counts as absent.
	ins := []string{c.in(0), c.dynIn(2), c.dynIn(3), ""}
	if c.in(2) != "" && !c.dynamic(2) {
		if v, ok := c.constFloats(2, "Resize scales"); ok && len(v) > 0 {
			op.Scales = toF32(v)
		}
	}
	if c.in(3) != "" && !c.dynamic(3) {
		if v, ok := c.constInts(3, "Resize sizes"); ok && len(v) > 0 {
			op.Sizes = v
		}
	}
	if op.CoordTransform == canon.TFCropAndResize {
		switch {
		case c.dynamic(1):
			ins[3] = c.in(1)
		case c.in(1) != "":
			if v, ok := c.constFloats(1, "Resize roi"); ok && len(v) > 0 {
				op.Roi = toF32(v)
			}
		}
	}
	if c.err != nil {
		return c.err
	}
	given := 0
	for _, b := range []bool{op.Scales != nil, op.Sizes != nil, ins[1] != "", ins[2] != ""} {
		if b {
			given++
		}
	}
	if given != 1 {
		return c.errf("exactly one of the scales and sizes inputs must be given (a scales input computed at run time cannot be left empty)")
	}
	if op.KeepAspect != canon.Stretch && op.Sizes == nil && ins[2] == "" {
		op.KeepAspect = canon.Stretch // the policy applies to sizes only
	}
	if c.im.opset >= 18 {
		if axes := c.ints("axes"); axes != nil {
			op.Axes = axes
			// The canonical form resizes every axis when that is exact
			// and known: constant parameters, a fixed rank and, for sizes,
			// known sizes of the axes left alone.
			if ins[1] == "" && ins[2] == "" && ins[3] == "" && op.KeepAspect == canon.Stretch {
				c.expandResizeAxes(op)
				if c.err != nil {
					return c.err
				}
			}
		}
	}
	for len(ins) > 1 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	return c.emit(op, ins, c.out1())
}

// resizeAttrs reads Resize-11+'s mode attributes.
func (c *nodeCtx) resizeAttrs(op *canon.Resize) error {
	pick := func(attr, def string, m map[string]uint8) (uint8, bool) {
		v := c.str(attr, def)
		k, ok := m[v]
		if !ok {
			c.fail("%s %q is not supported (supported: %s)", attr, v, strings.Join(sortedKeys(m), ", "))
		}
		return k, ok
	}
	mode, _ := pick("mode", "nearest", u8map(resizeModes))
	ct, _ := pick("coordinate_transformation_mode", "half_pixel", u8map(coordModes))
	nm, _ := pick("nearest_mode", "round_prefer_floor", u8map(nearestModes))
	kp, _ := pick("keep_aspect_ratio_policy", "stretch", u8map(aspectPolicies))
	if c.err != nil {
		return c.err
	}
	op.Mode, op.CoordTransform, op.Nearest, op.KeepAspect = canon.ResizeMode(mode), canon.CoordTransform(ct), canon.NearestMode(nm), canon.AspectPolicy(kp)
	if op.Mode == canon.ResizeCubic {
		op.CubicCoeffA = c.float("cubic_coeff_a", -0.75)
	}
	op.ExcludeOutside = c.int("exclude_outside", 0) != 0
	if op.CoordTransform == canon.TFCropAndResize {
		op.ExtrapolationValue = c.float("extrapolation_value", 0)
	}
	op.Antialias = c.int("antialias", 0) != 0
	if op.Antialias && op.Mode == canon.ResizeNearest {
		op.Antialias = false // ONNX Runtime ignores antialias for nearest
	}
	return nil
}

func u8map[K ~uint8](m map[string]K) map[string]uint8 {
	out := make(map[string]uint8, len(m))
	for k, v := range m {
		out[k] = uint8(v)
	}
	return out
}

// expandResizeAxes turns opset-18 per-axis scales, sizes and roi into
// full-rank ones, when the input's rank (and, for sizes, the sizes of the
// axes left alone) are known; otherwise it keeps Axes.
func (c *nodeCtx) expandResizeAxes(op *canon.Resize) {
	r, ok := c.rank(0)
	if !ok {
		return
	}
	axes, err := op.ResizeAxes(r)
	if err != nil {
		c.fail("%v", err)
		return
	}
	n := len(op.Scales) + len(op.Sizes)
	if n != len(axes) {
		c.fail("axes %v do not match %d scales/sizes", op.Axes, n)
		return
	}
	x := c.info(0)
	if op.Sizes != nil {
		full := make([]int64, r)
		for i := range full {
			full[i] = x.Shape[i].Size
		}
		for i, a := range axes {
			full[a] = op.Sizes[i]
		}
		for _, s := range full {
			if s < 0 {
				return // keep Axes: an axis left alone has unknown size
			}
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
		if len(op.Roi) != 2*len(axes) {
			c.fail("roi %v: want %d values for axes %v", op.Roi, 2*len(axes), op.Axes)
			return
		}
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

func init() {
	optable.Add(&ops, map[string]opEntry{
		"GridSample": {convGridSample, 16, []string{"GridSample"}},
		"AffineGrid": {convAffineGrid, 20, []string{"AffineGrid"}},
		"Col2Im":     {convCol2Im, 18, []string{"Col2Im"}},
	})
}

// GridSample-16 names its modes bilinear and bicubic; 20 renamed them
// linear and cubic and allowed any rank.
var gridModes = map[string]canon.ResizeMode{"bilinear": canon.ResizeLinear, "linear": canon.ResizeLinear,
	"nearest": canon.ResizeNearest, "bicubic": canon.ResizeCubic, "cubic": canon.ResizeCubic}

var gridPaddings = map[string]canon.GridPadding{"zeros": canon.GridZeros, "border": canon.GridBorder, "reflection": canon.GridReflection}

func convGridSample(c *nodeCtx) error {
	def := "linear"
	if c.im.opset < 20 {
		def = "bilinear"
	}
	m := c.str("mode", def)
	mode, ok := gridModes[m]
	if !ok {
		return c.errf("mode %q is not supported (supported: %s)", m, strings.Join(sortedKeys(gridModes), ", "))
	}
	p := c.str("padding_mode", "zeros")
	pad, ok := gridPaddings[p]
	if !ok {
		return c.errf("padding_mode %q is not supported (supported: %s)", p, strings.Join(sortedKeys(gridPaddings), ", "))
	}
	if r, ok := c.rank(0); ok && c.im.opset < 20 && r != 4 {
		return c.errf("GridSample-%d takes 4-D input only; X has rank %d", c.im.opset, r)
	}
	op := &canon.GridSample{Mode: mode, Padding: pad, AlignCorners: c.int("align_corners", 0) != 0}
	return c.emit(op, []string{c.in(0), c.in(1)}, c.out1())
}

func convAffineGrid(c *nodeCtx) error {
	op := &canon.AffineGrid{AlignCorners: c.int("align_corners", 0) != 0}
	ins := []string{c.in(0), c.dynIn(1)}
	if ins[1] == "" {
		v, ok := c.constInts(1, "AffineGrid size")
		if !ok {
			if c.err != nil {
				return c.err
			}
			return c.errf("the size input is required")
		}
		op.Size = v
		ins = ins[:1]
	}
	return c.emit(op, ins, c.out1())
}

func convCol2Im(c *nodeCtx) error {
	op := &canon.Col2Im{Strides: c.ints("strides"), Dilations: c.ints("dilations")}
	if pads := c.ints("pads"); pads != nil {
		if len(pads)%2 != 0 {
			return c.errf("pads %v must hold a begin and an end per axis", pads)
		}
		op.PadsBegin, op.PadsEnd = pads[:len(pads)/2], pads[len(pads)/2:]
	}
	ins := []string{c.in(0), c.dynIn(1), c.dynIn(2)}
	for i, f := range []*[]int64{&op.ImageShape, &op.BlockShape} {
		if ins[i+1] != "" {
			continue
		}
		v, ok := c.constInts(i+1, []string{"Col2Im image_shape", "Col2Im block_shape"}[i])
		if !ok {
			if c.err != nil {
				return c.err
			}
			return c.errf("the %s input is required", []string{"image_shape", "block_shape"}[i])
		}
		*f = v
	}
	for len(ins) > 1 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	return c.emit(op, ins, c.out1())
}
