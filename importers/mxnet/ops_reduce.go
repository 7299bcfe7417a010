package mxnetimport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The reduce family: sum, max, min, prod (and their *_axis spellings),
// norm (ord 1 and 2), argmax, argmin and topk. MXNet 1.x reduces every axis
// to shape (1,), not to a scalar, and returns argmax/argmin/topk indices as
// floats: both are reproduced with a Reshape and a Cast.

func init() {
	optable.Add(&converters, map[string]mxOp{
		"sum":      {convReduce(canon.ReduceSum), []string{"ReduceSum", "Reshape"}},
		"sum_axis": {convReduce(canon.ReduceSum), []string{"ReduceSum", "Reshape"}},
		"max":      {convReduce(canon.ReduceMax), []string{"ReduceMax", "Reshape"}},
		"max_axis": {convReduce(canon.ReduceMax), []string{"ReduceMax", "Reshape"}},
		"min":      {convReduce(canon.ReduceMin), []string{"ReduceMin", "Reshape"}},
		"min_axis": {convReduce(canon.ReduceMin), []string{"ReduceMin", "Reshape"}},
		"prod":     {convReduce(canon.ReduceProd), []string{"ReduceProd", "Reshape"}},
		"norm":     {convNorm, []string{"ReduceL2", "ReduceL1", "Reshape"}},
		"argmax":   {convArg(false), []string{"ArgMax", "Reshape", "Cast"}},
		"argmin":   {convArg(true), []string{"ArgMin", "Reshape", "Cast"}},
		"topk":     {convTopK, []string{"TopK", "Cast"}},
		// reverse is how the exporter writes select_last_index.
		"reverse": {convReverse, []string{"Slice"}},
	})
	optable.Add(&lacks, map[string]string{
		"ReduceLogSum":    "MXNet 1.x has no log-sum reduction (it is log of sum)",
		"ReduceLogSumExp": "MXNet 1.x has no logsumexp operator outside its numpy namespace",
		"ReduceSumSquare": "MXNet 1.x has no sum-of-squares reduction (it is sum of square)",
		"CumSum":          "MXNet 1.x has cumsum only in its numpy namespace (_np_cumsum), which is not read",
	})
}

// reduceTo emits op over x; a reduction of every axis without keepdims is
// reshaped to MXNet's shape (1,).
func reduceTo(b *builder, c *nodeCtx, op *canon.Reduce, x string) ([]string, error) {
	full := len(op.Axes) == 0 && !op.KeepDims
	if full {
		op.KeepDims = true
	}
	out := b.fresh(c.n.Name)
	if !full {
		return []string{out}, b.emit(out, op, []string{x}, out)
	}
	t := b.fresh(c.n.Name + "_reduced")
	if err := b.emit(t, op, []string{x}, t); err != nil {
		return nil, err
	}
	return []string{out}, b.emit(out, &canon.Reshape{Shape: []int64{1}}, []string{t}, out)
}

// reduceAttrs reads axis (empty: every axis), keepdims and exclude.
func reduceAttrs(c *nodeCtx) ([]int64, bool, error) {
	axes, err := c.a.ints("axis", nil)
	if err != nil {
		return nil, false, err
	}
	keep, err := c.a.bool("keepdims", false)
	if err != nil {
		return nil, false, err
	}
	if ex, err := c.a.bool("exclude", false); err != nil || ex {
		if err != nil {
			return nil, false, err
		}
		return nil, false, c.errf("exclude=True is not supported")
	}
	if len(axes) == 0 {
		axes = nil
	}
	return axes, keep, nil
}

func convReduce(fn canon.ReduceFn) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		axes, keep, err := reduceAttrs(c)
		if err != nil {
			return nil, err
		}
		x, err := b.in(c, 0)
		if err != nil {
			return nil, err
		}
		return reduceTo(b, c, &canon.Reduce{Fn: fn, Axes: axes, KeepDims: keep}, x)
	}
}

func convNorm(b *builder, c *nodeCtx) ([]string, error) {
	ord, err := c.a.int("ord", 2)
	if err != nil {
		return nil, err
	}
	fn := canon.ReduceL2
	switch ord {
	case 1:
		fn = canon.ReduceL1
	case 2:
	default:
		return nil, c.errf("ord=%d is not supported (only 1 and 2)", ord)
	}
	axes, err := c.a.ints("axis", nil)
	if err != nil {
		return nil, err
	}
	keep, err := c.a.bool("keepdims", false)
	if err != nil {
		return nil, err
	}
	if len(axes) == 0 {
		axes = nil
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	return reduceTo(b, c, &canon.Reduce{Fn: fn, Axes: axes, KeepDims: keep}, x)
}

// castIndices turns int64 indices into MXNet's float32 ones.
func castIndices(b *builder, c *nodeCtx, idx, out string, dt canon.DType) error {
	return b.emit(out, &canon.Cast{To: dt}, []string{idx}, out)
}

// convArg: without an axis MXNet takes the arg of the flattened input and
// returns shape (1,); indices are float32.
func convArg(isMin bool) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		x, err := b.in(c, 0)
		if err != nil {
			return nil, err
		}
		keep, err := c.a.bool("keepdims", false)
		if err != nil {
			return nil, err
		}
		op := &canon.ArgReduce{Min: isMin, KeepDims: keep}
		if c.a.has("axis") && c.a.str("axis", "None") != "None" {
			if op.Axis, err = c.a.int("axis", 0); err != nil {
				return nil, err
			}
		} else {
			flat := b.fresh(c.n.Name + "_flat")
			if err := b.emit(flat, &canon.Reshape{Shape: []int64{-1}}, []string{x}, flat); err != nil {
				return nil, err
			}
			x, op.KeepDims = flat, true
		}
		idx := b.fresh(c.n.Name + "_indices")
		if err := b.emit(idx, op, []string{x}, idx); err != nil {
			return nil, err
		}
		out := b.fresh(c.n.Name)
		return []string{out}, castIndices(b, c, idx, out, canon.Float32)
	}
}

// convTopK: ret_typ picks the outputs (indices by default), is_ascend the
// order; indices come in dtype (float32 by default).
func convTopK(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	axis, err := c.a.int("axis", -1)
	if err != nil {
		return nil, err
	}
	k, err := c.a.int("k", 1)
	if err != nil {
		return nil, err
	}
	asc, err := c.a.bool("is_ascend", false)
	if err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, c.errf("k=%d is not supported (MXNet's k <= 0 means the whole axis; give it explicitly)", k)
	}
	dt, err := canon.ParseDType(map[string]string{"float32": "f32", "float16": "f16", "float64": "f64", "int32": "i32", "int64": "i64", "uint8": "u8"}[c.a.str("dtype", "float32")])
	if err != nil {
		return nil, c.errf("dtype=%s is not supported", c.a.str("dtype", "float32"))
	}
	ret := c.a.str("ret_typ", "indices")
	if ret == "mask" {
		return nil, c.errf("ret_typ=mask is not supported")
	}
	vals, idx := b.fresh(c.n.Name+"_values"), b.fresh(c.n.Name+"_indices")
	if err := b.emit(c.n.Name, &canon.TopK{Axis: axis, K: k, Largest: !asc, Sorted: true}, []string{x}, vals, idx); err != nil {
		return nil, err
	}
	out := idx
	if dt != canon.Int64 {
		out = b.fresh(c.n.Name + "_cast")
		if err := castIndices(b, c, idx, out, dt); err != nil {
			return nil, err
		}
	}
	switch ret {
	case "value":
		return []string{vals}, nil
	case "both":
		return []string{vals, out}, nil
	case "indices":
		return []string{out}, nil
	}
	return nil, c.errf("ret_typ=%s is not supported", ret)
}

// convReverse reverses the listed axes: a Slice with step -1 on each.
func convReverse(b *builder, c *nodeCtx) ([]string, error) {
	axes, err := c.a.ints("axis", nil)
	if err != nil {
		return nil, err
	}
	if len(axes) == 0 {
		return nil, c.errf("reverse needs an axis")
	}
	n := len(axes)
	return single(b, c, &canon.Slice{Starts: reduceFill(n, -1), Ends: reduceFill(n, math.MinInt64), Axes: axes, Steps: reduceFill(n, -1)})
}

func reduceFill(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}
