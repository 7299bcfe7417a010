package onnximport

import (
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&ops, map[string]opEntry{
		// RoiAlign-10 maps corners without the half-pixel shift;
		// RoiAlign-16 added coordinate_transformation_mode, default
		// half_pixel.
		"RoiAlign": {convRoiAlign, 10, []string{"RoiAlign"}},
		// NonMaxSuppression-10 and -11 differ only in the types they list.
		"NonMaxSuppression": {convNMS, 10, []string{"NonMaxSuppression"}},
		"MaxRoiPool":        {convMaxRoiPool, 1, []string{"MaxRoiPool"}},
	})
}

func convRoiAlign(c *nodeCtx) error {
	op := &canon.RoiAlign{OutputHeight: c.int("output_height", 1), OutputWidth: c.int("output_width", 1),
		SamplingRatio: c.int("sampling_ratio", 0), SpatialScale: c.float("spatial_scale", 1)}
	switch m := strings.ToLower(c.str("mode", "avg")); m {
	case "avg":
	case "max":
		op.Max = true
	default:
		return c.errf("mode %q is not avg or max", m)
	}
	mode := "output_half_pixel"
	if c.im.opset >= 16 {
		mode = c.str("coordinate_transformation_mode", "half_pixel")
	}
	switch mode {
	case "half_pixel":
		op.HalfPixel = true
	case "output_half_pixel":
	default:
		return c.errf("coordinate_transformation_mode %q is not half_pixel or output_half_pixel", mode)
	}
	if op.OutputHeight < 1 || op.OutputWidth < 1 || op.SamplingRatio < 0 {
		return c.errf("output size %dx%d must be positive and sampling_ratio %d >= 0", op.OutputHeight, op.OutputWidth, op.SamplingRatio)
	}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

func convNMS(c *nodeCtx) error {
	cpb := c.int("center_point_box", 0)
	if cpb != 0 && cpb != 1 {
		return c.errf("center_point_box %d is not 0 or 1", cpb)
	}
	ins := []string{c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)}
	for len(ins) > 2 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	return c.emit(&canon.NonMaxSuppression{CenterPointBox: cpb == 1}, ins, c.out1())
}

func convMaxRoiPool(c *nodeCtx) error {
	shape := c.ints("pooled_shape")
	if len(shape) != 2 || shape[0] < 1 || shape[1] < 1 {
		return c.errf("pooled_shape %v must be two positive sizes", shape)
	}
	op := &canon.MaxRoiPool{PooledHeight: shape[0], PooledWidth: shape[1], SpatialScale: c.float("spatial_scale", 1)}
	if !(op.SpatialScale > 0) {
		return c.errf("spatial_scale %g must be positive", op.SpatialScale)
	}
	return c.emit(op, []string{c.in(0), c.in(1)}, c.out1())
}
