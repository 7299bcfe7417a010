package onnximport

import (
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The convert family: Cast, CastLike (read as Cast), Where, Expand, Tile,
// Size and the comparisons.

func init() {
	cmp := func(fn canon.CompareFn) func(c *nodeCtx) error {
		return func(c *nodeCtx) error {
			return c.emit(&canon.Compare{Fn: fn}, []string{c.in(0), c.in(1)}, c.out1())
		}
	}
	optable.Add(&ops, map[string]opEntry{
		"Cast":     {convCast, 1, []string{"Cast"}},
		"CastLike": {convCastLike, 15, []string{"Cast"}},
		"Where":    {simple(func() canon.Op { return &canon.Where{} }), 9, []string{"Where"}},
		"Expand":   {convExpand, 8, []string{"Expand"}},
		"Tile":     {convTile, 1, []string{"Tile"}},
		"Size":     {simple(func() canon.Op { return &canon.Size{} }), 1, []string{"Size"}},
		// Before opset 7 comparisons broadcast only with broadcast=1 and an
		// axis, like the arithmetic ops, which the importer reads from 7.
		"Equal":          {cmp(canon.CmpEqual), 7, []string{"Equal"}},
		"Less":           {cmp(canon.CmpLess), 7, []string{"Less"}},
		"LessOrEqual":    {cmp(canon.CmpLessOrEqual), 12, []string{"LessOrEqual"}},
		"Greater":        {cmp(canon.CmpGreater), 7, []string{"Greater"}},
		"GreaterOrEqual": {cmp(canon.CmpGreaterOrEqual), 12, []string{"GreaterOrEqual"}},
	})
}

// castTarget reads Cast's to attribute: an element type number, or before
// opset 6 its name ("FLOAT").
func (c *nodeCtx) castTarget() canon.DType {
	a := c.attrs["to"]
	if a == nil {
		c.fail("the to attribute is required")
		return canon.Undefined
	}
	var t int32
	if attrType(a) == onnxpb.AttributeProto_STRING {
		v, ok := onnxpb.TensorProto_DataType_value[strings.ToUpper(string(a.GetS()))]
		if !ok {
			c.fail("to is %q, which is not an ONNX element type name", a.GetS())
			return canon.Undefined
		}
		t = v
	} else {
		t = int32(c.int("to", 0))
	}
	dt, err := onnxtensor.DType(t)
	if err != nil {
		c.fail("cannot cast to %s: %v", onnxpb.TensorProto_DataType(t), err)
	}
	return dt
}

// convCast: saturate (opset 19) only changes float8 results, which canon
// does not carry, so it is read and ignored.
func convCast(c *nodeCtx) error {
	return c.emit(&canon.Cast{To: c.castTarget()}, []string{c.in(0)}, c.out1())
}

// convCastLike casts to the dtype of the second input, which is always
// known at import.
func convCastLike(c *nodeCtx) error {
	dt := c.info(1).DType
	if dt == canon.Undefined {
		return c.errf("the dtype of target_type %q is unknown; give the model's inputs their types", c.in(1))
	}
	return c.emit(&canon.Cast{To: dt}, []string{c.in(0)}, c.out1())
}

func convExpand(c *nodeCtx) error {
	if c.in(1) == "" {
		return c.errf("the shape input is missing")
	}
	if c.dynamic(1) {
		return c.emit(&canon.Expand{}, []string{c.in(0), c.in(1)}, c.out1())
	}
	shape, _ := c.constInts(1, "Expand shape")
	// Non-nil even when empty: an empty shape broadcasts to the input's own.
	return c.emit(&canon.Expand{Shape: append([]int64{}, shape...)}, []string{c.in(0)}, c.out1())
}

// convTile: Tile-1 takes a tiles count and an axis as scalar inputs; from
// opset 6 repeats is a 1-D input with one entry per axis.
func convTile(c *nodeCtx) error {
	if c.im.opset < 6 {
		tiles := int64(c.constScalar(1, "Tile tiles", 1))
		axis := int64(c.constScalar(2, "Tile axis", 0))
		r := c.needRank(0, "Tile-1")
		reps := fill(r, 1)
		if a := c.normAxis(axis, r, "axis"); c.err == nil {
			reps[a] = tiles
		}
		return c.emit(&canon.Tile{Repeats: reps}, []string{c.in(0)}, c.out1())
	}
	if c.in(1) == "" {
		return c.errf("the repeats input is missing")
	}
	if c.dynamic(1) {
		return c.emit(&canon.Tile{}, []string{c.in(0), c.in(1)}, c.out1())
	}
	reps, _ := c.constInts(1, "Tile repeats")
	return c.emit(&canon.Tile{Repeats: append([]int64{}, reps...)}, []string{c.in(0)}, c.out1())
}
