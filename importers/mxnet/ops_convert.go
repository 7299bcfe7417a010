package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The convert family: Cast, the comparisons (broadcast_*, the same-shape
// _equal... and the _*_scalar forms), where, tile, broadcast_to and
// size_array. MXNet's comparisons return 0/1 in the input's dtype, not
// bool: each is read as the canonical comparison followed by a Cast back
// to that dtype, so the values flowing on are MXNet's.

// castDTypes are Cast's dtype names.
var castDTypes = map[string]canon.DType{
	"float32": canon.Float32, "float64": canon.Float64, "float16": canon.Float16, "bfloat16": canon.BFloat16,
	"uint8": canon.Uint8, "int8": canon.Int8, "int16": canon.Int16, "int32": canon.Int32, "int64": canon.Int64,
	"uint16": canon.Uint16, "uint32": canon.Uint32, "uint64": canon.Uint64, "bool": canon.Bool,
}

func init() {
	cmpOps := map[string]canon.CompareFn{
		"equal": canon.CmpEqual, "lesser": canon.CmpLess, "lesser_equal": canon.CmpLessOrEqual,
		"greater": canon.CmpGreater, "greater_equal": canon.CmpGreaterOrEqual,
	}
	table := map[string]mxOp{
		"Cast":         {convCast, []string{"Cast"}},
		"cast":         {convCast, []string{"Cast"}},
		"where":        {convWhere, []string{"Where", "Cast", "Reshape"}},
		"tile":         {convTile, []string{"Tile", "Reshape"}},
		"broadcast_to": {convBroadcastTo, []string{"Expand"}},
		"size_array":   {convSizeArray, []string{"Size", "Reshape"}},
	}
	for name, fn := range cmpOps {
		kinds := []string{fn.String(), "Cast"}
		table["broadcast_"+name] = mxOp{compareConv(fn, false), kinds}
		table["_"+name] = mxOp{compareConv(fn, false), kinds}
		table["_"+name+"_scalar"] = mxOp{compareConv(fn, true), kinds}
	}
	// not_equal is Equal negated.
	neKinds := []string{"Equal", "Not", "Cast"}
	table["broadcast_not_equal"] = mxOp{notEqualConv(false), neKinds}
	table["_not_equal"] = mxOp{notEqualConv(false), neKinds}
	table["_not_equal_scalar"] = mxOp{notEqualConv(true), neKinds}
	table["broadcast_axis"] = mxOp{convBroadcastAxis, []string{"Expand"}}
	table["broadcast_axes"] = mxOp{convBroadcastAxis, []string{"Expand"}}
	table["broadcast_like"] = mxOp{convBroadcastLike, []string{"Expand"}}
	optable.Add(&converters, table)
}

func convCast(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("dtype"); err != nil {
		return nil, err
	}
	name := c.a.str("dtype", "")
	dt, ok := castDTypes[name]
	if !ok {
		return nil, c.errf("dtype %q is not supported (want one of float16, bfloat16, float32, float64, int8..int64, uint8..uint64, bool)", name)
	}
	return single(b, c, &canon.Cast{To: dt})
}

// notEqualConv reads not_equal as Not(Equal), answered in the input's
// dtype like the other comparisons.
func notEqualConv(scalar bool) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		x, y, _, err := operands(b, c, scalar, false)
		if err != nil {
			return nil, err
		}
		eq := b.fresh(c.n.Name + "_eq")
		if err := b.emit(eq, &canon.Compare{Fn: canon.CmpEqual}, []string{x, y}, eq); err != nil {
			return nil, err
		}
		ne := b.fresh(c.n.Name + "_bool")
		if err := b.emit(ne, &canon.Not{}, []string{eq}, ne); err != nil {
			return nil, err
		}
		return fromBool(b, c, ne, b.vals[x].DType)
	}
}

// convBroadcastAxis: broadcast_axis(axis, size) grows size-1 axes.
func convBroadcastAxis(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	v := b.vals[x]
	if !v.RankKnown {
		return nil, c.errf("the rank of input %s must be known", x)
	}
	axes, err := c.a.ints("axis", nil)
	if err != nil {
		return nil, err
	}
	sizes, err := c.a.ints("size", nil)
	if err != nil {
		return nil, err
	}
	if len(axes) != len(sizes) {
		return nil, c.errf("axis %v and size %v differ in length", axes, sizes)
	}
	r := len(v.Shape)
	target := ones(r, 1)
	for i, a := range axes {
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || a >= int64(r) {
			return nil, c.errf("axis %d is out of range for rank %d", axes[i], r)
		}
		if d := v.Shape[a]; d.Known() && d.Size != 1 {
			return nil, c.errf("axis %d has size %d; broadcast_axis grows only axes of size 1", a, d.Size)
		}
		target[a] = sizes[i]
	}
	return single(b, c, &canon.Expand{Shape: target})
}

// convBroadcastLike: lhs takes rhs's (static) shape.
func convBroadcastLike(b *builder, c *nodeCtx) ([]string, error) {
	if c.a.has("lhs_axes") || c.a.has("rhs_axes") {
		return nil, c.errf("lhs_axes and rhs_axes are not supported")
	}
	y, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	shape, ok := b.vals[y].StaticShape()
	if !ok {
		return nil, c.errf("the shape of %s must be known", y)
	}
	return single(b, c, &canon.Expand{Shape: shape})
}

// compareConv reads a comparison: two tensors, or a tensor and the scalar
// attribute (converted to the tensor's dtype, as MXNet does).
func compareConv(fn canon.CompareFn, scalar bool) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		x, err := b.in(c, 0)
		if err != nil {
			return nil, err
		}
		var y string
		if scalar {
			if err := c.a.required("scalar"); err != nil {
				return nil, err
			}
			s, err := c.a.float("scalar", 0)
			if err != nil {
				return nil, err
			}
			t, err := filled(c.n.Name+"_scalar", b.vals[x].DType, []int64{}, s)
			if err != nil {
				return nil, c.errf("%v", err)
			}
			y = b.constant(t)
		} else if y, err = b.in(c, 1); err != nil {
			return nil, err
		}
		mask := b.fresh(c.n.Name + "_bool")
		if err := b.emit(mask, &canon.Compare{Fn: fn}, []string{x, y}, mask); err != nil {
			return nil, err
		}
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, &canon.Cast{To: b.vals[x].DType}, []string{mask}, out)
	}
}

// convWhere: MXNet's condition is numeric (nonzero is true) and has X's
// shape, or is 1-D and picks whole rows along X's first axis.
func convWhere(b *builder, c *nodeCtx) ([]string, error) {
	cond, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	y, err := b.in(c, 2)
	if err != nil {
		return nil, err
	}
	if b.vals[cond].DType != canon.Bool {
		t := b.fresh(c.n.Name + "_cond")
		if err := b.emit(t, &canon.Cast{To: canon.Bool}, []string{cond}, t); err != nil {
			return nil, err
		}
		cond = t
	}
	cv, xv := b.vals[cond], b.vals[x]
	if cv.RankKnown && xv.RankKnown && len(cv.Shape) == 1 && len(xv.Shape) > 1 {
		shape := ones(len(xv.Shape), 1)
		shape[0] = -1
		t := b.fresh(c.n.Name + "_rows")
		if err := b.emit(t, &canon.Reshape{Shape: shape}, []string{cond}, t); err != nil {
			return nil, err
		}
		cond = t
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Where{}, []string{cond, x, y}, out)
}

// convTile: MXNet's reps may be shorter than the rank (leading 1s are
// implied) or longer (the input gains leading axes of size 1).
func convTile(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("reps"); err != nil {
		return nil, err
	}
	reps, err := c.a.ints("reps", nil)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	v := b.vals[x]
	if !v.RankKnown {
		return nil, c.errf("the rank of input %s must be known", x)
	}
	r := len(v.Shape)
	switch {
	case len(reps) < r:
		reps = append(ones(r-len(reps), 1), reps...)
	case len(reps) > r:
		shape := append(ones(len(reps)-r, 1), ones(r, 0)...)
		t := b.fresh(c.n.Name + "_lead")
		if err := b.emit(t, &canon.Reshape{Shape: shape}, []string{x}, t); err != nil {
			return nil, err
		}
		x = t
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Tile{Repeats: reps}, []string{x}, out)
}

// convBroadcastTo: a 0 in MXNet's shape keeps the input's size, which is
// what a 1 means to Expand.
func convBroadcastTo(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("shape"); err != nil {
		return nil, err
	}
	shape, err := c.a.ints("shape", nil)
	if err != nil {
		return nil, err
	}
	target := make([]int64, len(shape))
	for i, d := range shape {
		target[i] = d
		if d == 0 {
			target[i] = 1
		}
	}
	return single(b, c, &canon.Expand{Shape: target})
}

// convSizeArray: size_array gives a 1-element 1-D array (MXNet 1.x has no
// 0-d arrays).
func convSizeArray(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	s := b.fresh(c.n.Name + "_scalar")
	if err := b.emit(s, &canon.Size{}, []string{x}, s); err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Reshape{Shape: []int64{1}}, []string{s}, out)
}
