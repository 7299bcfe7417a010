package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// CenterCropPad (opset 18) is read as ONNX's own function body: each of
// the given axes is padded with zeros up to the target size (the smaller
// half before) and then cropped to it around the center (the smaller
// margin before). The target shape may be computed at run time.

func init() {
	optable.Add(&ops, map[string]opEntry{
		"CenterCropPad": {convCenterCropPad, 18, []string{"Pad", "Slice", "Shape", "Gather", "Cast", "Max", "Sub", "Div", "Add", "Concat", "Constant"}},
	})
}

func convCenterCropPad(c *nodeCtx) error {
	r := c.needRank(0, "CenterCropPad")
	if c.err != nil {
		return c.err
	}
	axes := c.ints("axes")
	if axes == nil {
		for i := range r {
			axes = append(axes, int64(i))
		}
	}
	axes = c.normAxes(axes, r, "axis")
	if c.in(1) == "" {
		c.fail("the shape input is required")
	}
	if c.err != nil {
		return c.err
	}
	x, target := c.in(0), c.in(1)
	if dt := c.info(1).DType; dt != canon.Int64 {
		var err error
		if target, err = c.emitAux("shape_i64", &canon.Cast{To: canon.Int64}, target); err != nil {
			return err
		}
	}
	axesConst := c.chainAux("axes", &canon.Constant{Value: canon.NewInt64Tensor("", []int64{int64(len(axes))}, axes)})
	two := c.chainAux("two", &canon.Constant{Value: canon.NewInt64Tensor("", []int64{}, []int64{2})})
	sizesOf := func(suffix, v string) string {
		return c.chainAux(suffix, &canon.Gather{Axis: 0}, c.chainAux(suffix+"_all", canon.NewShapeOf(), v), axesConst)
	}
	sizes := sizesOf("in_sizes", x)
	padded := c.chainAux("padded_sizes", &canon.Variadic{Fn: canon.VarMax}, sizes, target)
	grow := c.chainAux("pad_total", &canon.Binary{Fn: canon.Sub}, padded, sizes)
	before := c.chainAux("pad_before", &canon.Binary{Fn: canon.Div}, grow, two)
	after := c.chainAux("pad_after", &canon.Binary{Fn: canon.Sub}, grow, before)
	pads := c.chainAux("pads", &canon.Concat{Axis: 0}, before, after)
	p := c.chainAux("padded", &canon.Pad{Mode: canon.PadConstant, Axes: axes}, x, pads)
	excess := c.chainAux("crop_total", &canon.Binary{Fn: canon.Sub}, sizesOf("padded_sizes_now", p), target)
	starts := c.chainAux("crop_start", &canon.Binary{Fn: canon.Div}, excess, two)
	ends := c.chainAux("crop_end", &canon.Binary{Fn: canon.Add}, starts, target)
	if c.err != nil {
		return c.err
	}
	return c.emit(&canon.Slice{Axes: axes}, []string{p, starts, ends}, c.out1())
}
