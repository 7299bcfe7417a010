package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The indexing family: gather_nd, one_hot and pick (one index per row
// along an axis: GatherElements with the indices widened by one axis).
// MXNet 1.x has no op for the other kinds of the family.

func init() {
	optable.Add(&converters, map[string]mxOp{
		"gather_nd": {convGatherND, []string{"GatherND", "Transpose"}},
		"one_hot":   {convOneHot, []string{"OneHot"}},
		"pick":      {convPick, []string{"GatherElements", "Cast", "Max", "Min", "Mod", "Unsqueeze", "Squeeze"}},
	})
	optable.Add(&lacks, map[string]string{
		"ScatterElements": "MXNet 1.x has no scatter along an axis",
		"ScatterND":       "MXNet's scatter_nd starts from zeros, not from data; it is not read yet",
		"Compress":        "MXNet 1.x has no boolean selection op outside contrib",
		"Trilu":           "MXNet 1.x has no triu/tril op",
	})
}

// convGatherND: MXNet's indices hold the tuples on their first axis, ONNX's
// (and canon's) on the last, so the indices are transposed; constant
// indices (MXNet often stores them as floats) become an i64 constant.
func convGatherND(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	idx, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	vi := b.vals[idx]
	if !vi.RankKnown || len(vi.Shape) < 1 {
		return nil, c.errf("the rank of indices %s must be known and at least 1", idx)
	}
	q := len(vi.Shape)
	perm := make([]int64, q)
	for i := range q - 1 {
		perm[i] = int64(i + 1)
	}
	if k := vi.Const; k != nil {
		v, err := k.Float64s()
		if err != nil {
			return nil, c.errf("indices %s: %v", idx, err)
		}
		m := int(k.Shape[0])
		count := len(v) / max(m, 1)
		out := make([]int64, len(v))
		for a := range m {
			for p := range count {
				out[p*m+a] = int64(v[a*count+p])
			}
		}
		shape := append(append([]int64{}, k.Shape[1:]...), int64(m))
		idx = b.constant(canon.NewInt64Tensor(c.n.Name+"_indices", shape, out))
	} else {
		if vi.DType != canon.Int64 && vi.DType != canon.Int32 {
			return nil, c.errf("indices %s are %s and computed at run time; GatherND needs int32 or int64 indices", idx, vi.DType)
		}
		t := b.fresh(c.n.Name + "_indices")
		if err := b.emit(t, &canon.Transpose{Perm: perm}, []string{idx}, t); err != nil {
			return nil, err
		}
		idx = t
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.GatherND{}, []string{x, idx}, out)
}

// convOneHot: one_hot appends an axis of size depth; negative indices are
// out of range, and on/off values are attributes in dtype.
func convOneHot(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("depth"); err != nil {
		return nil, err
	}
	depth, err := c.a.int("depth", 0)
	if err != nil {
		return nil, err
	}
	if depth < 1 {
		return nil, c.errf("depth is %d, must be >= 1", depth)
	}
	on, err := c.a.float("on_value", 1)
	if err != nil {
		return nil, err
	}
	off, err := c.a.float("off_value", 0)
	if err != nil {
		return nil, err
	}
	var vals *canon.Tensor
	switch dt := c.a.str("dtype", "float32"); dt {
	case "float32":
		vals = canon.NewFloat32Tensor(c.n.Name+"_values", []int64{2}, []float32{float32(off), float32(on)})
	case "int64":
		vals = canon.NewInt64Tensor(c.n.Name+"_values", []int64{2}, []int64{int64(off), int64(on)})
	default:
		return nil, c.errf("dtype %s is not supported (float32 or int64)", dt)
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.OneHot{Axis: -1, Depth: depth}, []string{x, b.constant(vals)}, out)
}

// convPick: the (float) indices are truncated to int64, then clipped to
// [0, n) (mode "clip", the default) or wrapped modulo n (mode "wrap").
func convPick(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	idx, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	if c.a.has("axis") && c.a.str("axis", "") == "None" {
		return nil, c.errf("axis=None (picking from the flattened data) is not supported")
	}
	axis, err := c.a.int("axis", -1)
	if err != nil {
		return nil, err
	}
	keep, err := c.a.bool("keepdims", false)
	if err != nil {
		return nil, err
	}
	xs, ok := b.vals[x].StaticShape()
	if !ok {
		return nil, c.errf("the shape of %s must be known", x)
	}
	r := int64(len(xs))
	if axis < 0 {
		axis += r
	}
	if axis < 0 || axis >= r {
		return nil, c.errf("axis %d is out of range for rank %d", axis, r)
	}
	step := func(suffix string, op canon.Op, ins ...string) (string, error) {
		out := b.fresh(c.n.Name + suffix)
		return out, b.emit(out, op, ins, out)
	}
	if b.vals[idx].DType != canon.Int64 {
		if idx, err = step("_index", &canon.Cast{To: canon.Int64}, idx); err != nil {
			return nil, err
		}
	}
	n := xs[axis]
	switch mode := c.a.str("mode", "clip"); mode {
	case "clip":
		lo := b.constant(canon.NewInt64Tensor(c.n.Name+"_lo", []int64{}, []int64{0}))
		hi := b.constant(canon.NewInt64Tensor(c.n.Name+"_hi", []int64{}, []int64{n - 1}))
		if idx, err = step("_low", &canon.Variadic{Fn: canon.VarMax}, idx, lo); err != nil {
			return nil, err
		}
		if idx, err = step("_clipped", &canon.Variadic{Fn: canon.VarMin}, idx, hi); err != nil {
			return nil, err
		}
	case "wrap":
		size := b.constant(canon.NewInt64Tensor(c.n.Name+"_size", []int64{}, []int64{n}))
		if idx, err = step("_wrapped", &canon.Mod{}, idx, size); err != nil {
			return nil, err
		}
	default:
		return nil, c.errf("mode %q is not supported (clip or wrap)", mode)
	}
	iv := b.vals[idx]
	if !iv.RankKnown {
		return nil, c.errf("the rank of the indices must be known")
	}
	switch int64(len(iv.Shape)) {
	case r - 1:
		if idx, err = step("_rows", &canon.Unsqueeze{Axes: []int64{axis}}, idx); err != nil {
			return nil, err
		}
	case r:
	default:
		return nil, c.errf("indices of rank %d do not fit data of rank %d", len(iv.Shape), r)
	}
	if keep {
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, &canon.GatherElements{Axis: axis}, []string{x, idx}, out)
	}
	g, err := step("_picked", &canon.GatherElements{Axis: axis}, x, idx)
	if err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Squeeze{Axes: []int64{axis}}, []string{g}, out)
}
