package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The generate family: NonZero, Unique, Range, ConstantOfShape, EyeLike,
// DepthToSpace, SpaceToDepth, ReverseSequence.

func init() {
	optable.Add(&ops, map[string]opEntry{
		"NonZero":         {simple(func() canon.Op { return &canon.NonZero{} }), 9, []string{"NonZero"}},
		"Unique":          {convUnique, 11, []string{"Unique"}},
		"Range":           {convRange, 11, []string{"Range"}},
		"ConstantOfShape": {convConstantOfShape, 9, []string{"ConstantOfShape"}},
		"EyeLike":         {convEyeLike, 9, []string{"EyeLike"}},
		"DepthToSpace":    {convDepthToSpace, 1, []string{"DepthToSpace"}},
		"SpaceToDepth": {func(c *nodeCtx) error {
			return c.emit(&canon.SpaceToDepth{Blocksize: c.blocksize()}, []string{c.in(0)}, c.out1())
		}, 1, []string{"SpaceToDepth"}},
		"ReverseSequence": {convReverseSequence, 10, []string{"ReverseSequence"}},
	})
}

func convUnique(c *nodeCtx) error {
	op := &canon.Unique{Sorted: c.int("sorted", 1) != 0, Flatten: !c.has("axis")}
	if !op.Flatten {
		op.Axis = c.int("axis", 0)
		if r, ok := c.rank(0); ok {
			op.Axis = c.normAxis(op.Axis, r, "axis")
		}
	}
	return c.emit(op, []string{c.in(0)}, c.outputs(4, "Unique has four outputs"))
}

func convRange(c *nodeCtx) error {
	if c.in(0) == "" || c.in(1) == "" || c.in(2) == "" {
		return c.errf("needs the start, limit and delta inputs")
	}
	return c.emit(&canon.Range{}, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

// convConstantOfShape folds a known shape (an initializer, or shape
// arithmetic such as PyTorch's Shape -> ConstantOfShape chain for F.pad)
// into the attribute, so the output shape is static.
func convConstantOfShape(c *nodeCtx) error {
	op := &canon.ConstantOfShape{Value: canon.NewFloat32Tensor("", []int64{1}, []float32{0})}
	if c.has("value") {
		a := c.attr("value", onnxpb.AttributeProto_TENSOR)
		if a == nil {
			return c.err
		}
		tp := a.GetT()
		if tp == nil {
			return c.errf("attribute value is a TENSOR attribute without a tensor; the file is damaged")
		}
		t, err := c.im.tr.Convert(tp, tp.RawData, tp.RawData != nil)
		if err != nil {
			return c.errf("attribute value: %v", err)
		}
		if n := t.NumElements(); n != 1 {
			return c.errf("attribute value has %d elements, want 1", n)
		}
		t.Name = ""
		op.Value = t
	}
	if c.in(0) == "" {
		return c.errf("needs the shape input")
	}
	shapeIn := c.dynIn(0)
	if shapeIn == "" {
		if v, ok := c.constInts(0, "shape"); ok {
			for _, d := range v {
				if d < 0 {
					c.fail("shape %v has a negative size", v)
				}
			}
			op.Shape = v
			if len(v) == 0 {
				op.Shape = nil // a scalar
			}
		}
	}
	return c.emit(op, []string{shapeIn}, c.out1())
}

func convEyeLike(c *nodeCtx) error {
	dt := c.info(0).DType
	if c.has("dtype") {
		t, err := onnxtensor.DType(int32(c.int("dtype", 0)))
		if err != nil {
			c.fail("dtype: %v", err)
		}
		dt = t
	}
	if dt == canon.Undefined {
		c.fail("the output dtype is unknown: the input's dtype is not known and there is no dtype attribute")
	}
	return c.emit(&canon.EyeLike{K: c.int("k", 0), DType: dt}, []string{c.in(0)}, c.out1())
}

func (c *nodeCtx) blocksize() int64 {
	if !c.has("blocksize") {
		c.fail("the blocksize attribute is required")
	}
	b := c.int("blocksize", 1)
	if b < 1 {
		c.fail("blocksize is %d, must be >= 1", b)
	}
	return b
}

// convDepthToSpace: the mode attribute arrived in opset 11; before, the
// order is DCR.
func convDepthToSpace(c *nodeCtx) error {
	op := &canon.DepthToSpace{Blocksize: c.blocksize()}
	if c.im.opset >= 11 {
		switch m := c.str("mode", "DCR"); m {
		case "DCR":
		case "CRD":
			op.CRD = true
		default:
			c.fail("mode is %q, want DCR or CRD", m)
		}
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convReverseSequence(c *nodeCtx) error {
	op := &canon.ReverseSequence{BatchAxis: c.int("batch_axis", 1), TimeAxis: c.int("time_axis", 0)}
	if !((op.BatchAxis == 0 && op.TimeAxis == 1) || (op.BatchAxis == 1 && op.TimeAxis == 0)) {
		c.fail("batch_axis %d and time_axis %d must be 0 and 1 in some order", op.BatchAxis, op.TimeAxis)
	}
	return c.emit(op, []string{c.in(0), c.in(1)}, c.out1())
}
