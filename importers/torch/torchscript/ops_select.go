package torchscript

import (
	"errors"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The selection family: basic indexing (torch.slice, torch.select, which
// x[a:b] and x[k] trace to, narrow, flip, unflatten), advanced indexing
// (torch.index: integer tensors read as Gather or GatherND, a boolean mask
// as Compress; index_select) and indexed assignment (torch.index_put:
// ScatterND, or Where for a mask and one value; masked_fill), torch.stack
// and torch.clone.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.slice":        entry(opSlice, "Slice"),
		"torch.select":       entry(opSelect, "Gather"),
		"torch.clone":        entry(opClone, "Identity"),
		"torch.alias":        entry(opClone, "Identity"),
		"torch.unflatten":    entry(marksView(opUnflatten), "Reshape"),
		"torch.narrow":       entry(marksView(opNarrow), "Slice"),
		"torch.copy_":        entry(inPlace(opCopy), "Expand", "Cast", "ScatterND", "Reshape", "Shape"),
		"torch.fill_":        entry(inPlace(opFill), "ConstantOfShape", "Expand", "Cast", "ScatterND", "Reshape", "Shape"),
		"torch.flip":         entry(opFlip, "Slice"),
		"torch.index_select": entry(opIndexSelect, "Gather", "Reshape"),
		"torch.masked_fill":  entry(opMaskedFill, "Where", "Cast"),
		"torch.masked_fill_": entry(inPlace(opMaskedFill), "Where", "Cast"),
		"torch.stack":        entry(opStack, "Unsqueeze", "Concat", "Transpose"),
		"torch.index":        entry(opIndex, "Gather", "GatherND", "Compress", "Reshape", "Transpose", "Expand", "Unsqueeze", "Concat", "Cast", "Shape"),
		"torch.index_put":    entry(opIndexPut, "ScatterND", "Where", "NonZero", "Transpose", "Reshape", "Expand", "Unsqueeze", "Concat", "Cast", "Squeeze", "Add"),
		"torch.index_put_":   entry(inPlace(opIndexPut), "ScatterND", "Where", "NonZero", "Transpose", "Reshape", "Expand", "Unsqueeze", "Concat", "Cast", "Squeeze", "Add"),
	})
}

// opSlice: x[start:end:step] along dim; torch's end is INT64_MAX for an
// open slice, which Slice's clamping reads the same way.
func opSlice(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=0", "start=None", "end=None", "step=1")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	if v, ok, err := sliceRunTime(c, x, d); ok {
		return v, err
	}
	start, end := int64(0), int64(math.MaxInt64)
	if !c.isNone(2) {
		if start, err = c.int(2); err != nil {
			return nil, err
		}
	}
	if !c.isNone(3) {
		if end, err = c.int(3); err != nil {
			return nil, err
		}
	}
	step, err := c.int(4)
	if err != nil {
		return nil, err
	}
	if step < 1 {
		return nil, c.errf("step is %d, must be positive", step)
	}
	if start == 0 && end == math.MaxInt64 && step == 1 {
		return x, nil // x[:] is x
	}
	out, err := c.b().emit1(c.scope, &canon.Slice{Starts: []int64{start}, Ends: []int64{end}, Axes: []int64{d}, Steps: []int64{step}}, x)
	if err == nil {
		trackView(c, x, out, viewStep{axis: int(d), start: start, end: end, step: step})
	}
	return out, err
}

// opSelect: x[k] along dim drops the axis, as Gather with a scalar index.
func opSelect(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "index")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	k, err := c.int(2)
	if err != nil {
		return nil, err
	}
	if vi := c.b().info(x); vi.RankKnown && vi.Shape[d].Known() {
		if n := vi.Shape[d].Size; k < -n || k >= n {
			return nil, c.errf("index %d is out of range for dimension %d of size %d", k, d, n)
		}
	}
	if v, ok := selectConst(c, x, k); ok {
		return v, nil
	}
	idx := &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{k})}
	out, err := c.b().emit1(c.scope, &canon.Gather{Axis: d}, x, idx)
	if err == nil {
		trackView(c, x, out, viewStep{axis: int(d), start: k, selects: true})
	}
	return out, err
}

// selectConst computes x[k] at import for a 1-D integer weight or
// constant, so that int(x[k]) (an index traced from a buffer) is known.
func selectConst(c *opCall, x *tensorVal, k int64) (value, bool) {
	vi := c.b().info(x)
	if x.ref == nil && x.konst == nil || !vi.DType.IsInt() || len(vi.Shape) != 1 || !vi.Shape[0].Known() || vi.Shape[0].Size > 1<<16 {
		return nil, false
	}
	name, err := c.b().valueName(x)
	if err != nil {
		return nil, false
	}
	k0 := c.b().vals[name].Const
	if k0 == nil {
		return nil, false
	}
	v, err := k0.Int64s()
	if err != nil {
		return nil, false
	}
	if k < 0 {
		k += int64(len(v))
	}
	t, err := scalarAs(float64(v[k]), vi.DType)
	if err != nil || float64(v[k]) != float64(int64(float64(v[k]))) {
		return nil, false
	}
	return &tensorVal{konst: t}, true
}

// opClone copies: a distinct value, so that in-place ops on the copy leave
// the original alone.
func opClone(c *opCall) (value, error) {
	x, err := c.bindInput("input", "memory_format=None")
	if err != nil {
		return nil, err
	}
	if _, isView := c.b().views[x.name]; x.name != "" && isView || x.ref != nil || x.konst != nil {
		// A copy of a view, weight or constant is a tensor of its own,
		// which in-place ops may change.
		return c.b().emit1(c.scope, &canon.Identity{}, x)
	}
	cp := *x
	return &cp, nil
}

// advancedIndex is a torch.index/index_put index list: the position and
// tensor of each non-None entry.
type advancedIndex struct {
	pos  []int
	ts   []*tensorVal
	mask bool // a single boolean (or uint8) mask
}

func readIndices(c *opCall, i int, x *tensorVal) (advancedIndex, int, error) {
	var ai advancedIndex
	items, ok := listItems(c.bound[i])
	if !ok {
		return ai, 0, c.errf("indices must be a list, got %s", typeName(c.bound[i]))
	}
	rank, err := c.rankOf(x, "the input")
	if err != nil {
		return ai, 0, err
	}
	consumed := 0
	for k, it := range items {
		if _, none := it.(noneVal); none {
			consumed++
			continue
		}
		t, ok := it.(*tensorVal)
		if !ok {
			return ai, 0, c.errf("index %d is a %s, not a Tensor or None", k, typeName(it))
		}
		dt := c.b().info(t).DType
		switch {
		case dt == canon.Bool || dt == canon.Uint8:
			if dt == canon.Uint8 {
				if t, err = c.b().emit1(c.scope, &canon.Cast{To: canon.Bool}, t); err != nil {
					return ai, 0, err
				}
			}
			r, err := c.rankOf(t, "the mask")
			if err != nil {
				return ai, 0, err
			}
			ai.mask = true
			consumed += r
		case dt == canon.Int64 || dt == canon.Int32:
			consumed++
		default:
			return ai, 0, c.errf("index %d is a %s tensor; indices are integer or bool tensors", k, dt)
		}
		ai.pos = append(ai.pos, k)
		ai.ts = append(ai.ts, t)
	}
	if consumed > rank {
		return ai, 0, c.errf("too many indices (%d) for a rank-%d tensor", consumed, rank)
	}
	if ai.mask && len(ai.ts) > 1 {
		return ai, 0, c.errf("a boolean mask combined with other index tensors is not supported; index with one mask or with integer tensors")
	}
	return ai, rank, nil
}

// adjacent reports whether the index tensors sit on consecutive axes;
// torch then puts the indexed result where they are, and otherwise first.
func (ai advancedIndex) adjacent() bool {
	for k := 1; k < len(ai.pos); k++ {
		if ai.pos[k] != ai.pos[k-1]+1 {
			return false
		}
	}
	return true
}

// frontPerm moves axes (ascending) of a rank-r tensor to the front, the
// others following in order; identity reports that nothing moves.
func frontPerm(r int, axes []int) (perm []int64, identity bool) {
	in := map[int]bool{}
	for _, a := range axes {
		in[a] = true
		perm = append(perm, int64(a))
	}
	for i := range r {
		if !in[i] {
			perm = append(perm, int64(i))
		}
	}
	identity = true
	for i, p := range perm {
		identity = identity && p == int64(i)
	}
	return perm, identity
}

func inversePerm(p []int64) []int64 {
	inv := make([]int64, len(p))
	for i, v := range p {
		inv[v] = int64(i)
	}
	return inv
}

// stackIndices broadcasts integer index tensors to one shape B and stacks
// them on a new last axis: GatherND/ScatterND indices of shape B + [k].
func stackIndices(c *opCall, ts []*tensorVal) (*tensorVal, []int64, error) {
	var shapes [][]int64
	for _, t := range ts {
		s, err := c.shapeOf(t, "an index tensor")
		if err != nil {
			return nil, nil, err
		}
		shapes = append(shapes, s)
	}
	var b []int64
	for _, s := range shapes {
		var err error
		if b, err = broadcastShapes(b, s); err != nil {
			return nil, nil, c.errf("index tensors of shapes %v: %v", shapes, err)
		}
	}
	parts := make([]*tensorVal, len(ts))
	for k, t := range ts {
		var err error
		if c.b().info(t).DType != canon.Int64 {
			if t, err = c.b().emit1(c.scope, &canon.Cast{To: canon.Int64}, t); err != nil {
				return nil, nil, err
			}
		}
		if !sameInts(shapes[k], b) {
			if t, err = c.b().emit1(c.scope, &canon.Expand{Shape: b}, t); err != nil {
				return nil, nil, err
			}
		}
		if parts[k], err = c.b().emit1(c.scope, &canon.Unsqueeze{Axes: []int64{int64(len(b))}}, t); err != nil {
			return nil, nil, err
		}
	}
	if len(parts) == 1 {
		return parts[0], b, nil
	}
	out, err := c.b().emit1(c.scope, &canon.Concat{Axis: int64(len(b))}, parts...)
	return out, b, err
}

func broadcastShapes(a, b []int64) ([]int64, error) {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for i := range n {
		da, db := int64(1), int64(1)
		if j := i - (n - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			db = b[j]
		}
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, errBroadcast
		}
	}
	return out, nil
}

var errBroadcast = errors.New("they do not broadcast")

func sameInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// toFront is the permutation moving axes [d, d+k) of a rank-r tensor to
// the front.
func toFront(r, d, k int) []int64 {
	var perm []int64
	for i := d; i < d+k; i++ {
		perm = append(perm, int64(i))
	}
	for i := range r {
		if i < d || i >= d+k {
			perm = append(perm, int64(i))
		}
	}
	return perm
}

// opIndex reads x[indices] with tensor indices: one integer tensor is a
// Gather, adjacent ones a GatherND (on x transposed so they lead, when
// slices come first), a boolean mask a Compress.
func opIndex(c *opCall) (value, error) {
	x, err := c.bindInput("input", "indices")
	if err != nil {
		return nil, err
	}
	ai, rank, err := readIndices(c, 1, x)
	if err != nil {
		return nil, err
	}
	if len(ai.ts) == 0 {
		return x, nil
	}
	d := ai.pos[0]
	if ai.mask {
		return maskSelect(c, x, ai.ts[0], d, rank)
	}
	if len(ai.ts) == 1 {
		idx := ai.ts[0]
		return c.b().emit1(c.scope, &canon.Gather{Axis: int64(d)}, x, idx)
	}
	k := len(ai.ts)
	idx, nb, err := indexStack(c, ai.ts)
	if err != nil {
		return nil, err
	}
	perm, identity := frontPerm(rank, ai.pos)
	src := x
	if !identity {
		if src, err = c.b().emit1(c.scope, &canon.Transpose{Perm: perm}, x); err != nil {
			return nil, err
		}
	}
	out, err := c.b().emit1(c.scope, &canon.GatherND{}, src, idx)
	if err != nil || d == 0 || !ai.adjacent() {
		// Separated index tensors put the indexed result first in torch
		// too.
		return out, err
	}
	// GatherND gives B + x.shape[:d] + x.shape[d+k:]; torch puts B at d.
	var back []int64
	for i := nb; i < nb+d; i++ {
		back = append(back, int64(i))
	}
	for i := range nb {
		back = append(back, int64(i))
	}
	for i := nb + d; i < nb+rank-k; i++ {
		back = append(back, int64(i))
	}
	return c.b().emit1(c.scope, &canon.Transpose{Perm: back}, out)
}

// maskSelect is x[mask] with a mask covering axes [d, d+m): a 1-D mask is
// a Compress along d; a mask over the leading axes flattens them first.
func maskSelect(c *opCall, x, mask *tensorVal, d, rank int) (value, error) {
	if mi := c.b().info(mask); mi.RankKnown && len(mi.Shape) == 1 {
		// A 1-D mask of a length only a run tells is a Compress too.
		return c.b().emit1(c.scope, &canon.Compress{Axis: int64(d)}, x, mask)
	}
	ms, err := c.shapeOf(mask, "the mask")
	if err != nil {
		return nil, err
	}
	if len(ms) == 1 {
		return c.b().emit1(c.scope, &canon.Compress{Axis: int64(d)}, x, mask)
	}
	if d != 0 {
		return nil, c.errf("a %d-D mask after a slice is not supported; put the mask first", len(ms))
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if !sameInts(xs[:len(ms)], ms) {
		return nil, c.errf("the mask's shape %v does not match the input's leading sizes %v", ms, xs[:len(ms)])
	}
	flatMask, err := c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{-1}}, mask)
	if err != nil {
		return nil, err
	}
	if len(ms) == rank {
		return c.b().emit1(c.scope, &canon.Compress{Flatten: true}, x, flatMask)
	}
	lead := append([]int64{canon.NumElements(ms)}, xs[len(ms):]...)
	flat, err := c.b().emit1(c.scope, &canon.Reshape{Shape: lead, AllowZero: true}, x)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Compress{Axis: 0}, flat, flatMask)
}

// opIndexPut reads x[indices] = values (accumulate: +=). Values take x's
// dtype, as torch requires. A mask with one value is a Where; otherwise
// the indexed positions are scattered with ScatterND.
func opIndexPut(c *opCall) (value, error) {
	x, err := c.bindInput("input", "indices", "values", "accumulate=False")
	if err != nil {
		return nil, err
	}
	acc, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	ai, rank, err := readIndices(c, 1, x)
	if err != nil {
		return nil, err
	}
	dt := c.b().info(x).DType
	vals, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	if vals, err = valuesAs(c, vals, dt); err != nil {
		return nil, err
	}
	if len(ai.ts) == 0 {
		return nil, c.errf("an index list without tensors is not supported")
	}
	if ai.mask && ai.pos[0] != 0 {
		return maskPutAfter(c, x, ai.ts[0], ai.pos[0], vals, acc, rank)
	}
	red := canon.ScatterNone
	if acc {
		red = canon.ScatterAdd
	}
	if _, static := c.b().info(x).StaticShape(); !static && !ai.mask && len(ai.ts) == 1 && ai.pos[0] == 0 {
		return indexPutRunTime(c, x, ai.ts[0], vals, red)
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	vs, vsKnown := c.b().info(vals).StaticShape()
	if ai.mask {
		mask := ai.ts[0]
		ms, err := c.shapeOf(mask, "the mask")
		if err != nil {
			return nil, err
		}
		if !sameInts(xs[:len(ms)], ms) {
			return nil, c.errf("the mask's shape %v does not match the input's leading sizes %v", ms, xs[:len(ms)])
		}
		if vsKnown && canon.NumElements(vs) == 1 && !acc {
			if len(ms) < rank {
				axes := make([]int64, rank-len(ms))
				for i := range axes {
					axes[i] = int64(len(ms) + i)
				}
				if mask, err = c.b().emit1(c.scope, &canon.Unsqueeze{Axes: axes}, mask); err != nil {
					return nil, err
				}
			}
			if len(vs) > 0 {
				if vals, err = c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{}}, vals); err != nil {
					return nil, err
				}
			}
			return c.b().emit1(c.scope, &canon.Where{}, mask, vals, x)
		}
		nz, err := c.b().emit1(c.scope, &canon.NonZero{}, mask)
		if err != nil {
			return nil, err
		}
		idx, err := c.b().emit1(c.scope, &canon.Transpose{Perm: []int64{1, 0}}, nz)
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.ScatterND{Reduction: red}, x, idx, vals)
	}
	if !vsKnown {
		return nil, c.errf("the shape of the values is not known at import; give the input shape (--input-shape NAME=D1,D2,...)")
	}
	idx, b, err := stackIndices(c, ai.ts)
	if err != nil {
		return nil, err
	}
	// ScatterND indexes the leading axes: the indexed axes are moved to the
	// front, and the values laid out as torch's x[indices] is (the indexed
	// result where the adjacent index tensors are, first otherwise) are
	// moved to match.
	perm, identity := frontPerm(rank, ai.pos)
	var rest []int64
	for _, p := range perm[len(ai.pos):] {
		rest = append(rest, xs[p])
	}
	d := ai.pos[0]
	want := append(append([]int64{}, b...), rest...)
	lead := ai.adjacent() && d > 0
	if lead {
		want = append(append(append([]int64{}, xs[:d]...), b...), xs[d+len(ai.ts):]...)
	}
	if !sameInts(vs, want) {
		if _, err := broadcastShapes(want, vs); err != nil || len(vs) > len(want) {
			return nil, c.errf("values of shape %v do not broadcast to the indexed shape %v", vs, want)
		}
		if vals, err = c.b().emit1(c.scope, &canon.Expand{Shape: want}, vals); err != nil {
			return nil, err
		}
	}
	if lead {
		if vals, err = c.b().emit1(c.scope, &canon.Transpose{Perm: toFront(len(want), d, len(b))}, vals); err != nil {
			return nil, err
		}
	}
	if identity {
		return c.b().emit1(c.scope, &canon.ScatterND{Reduction: red}, x, idx, vals)
	}
	xt, err := c.b().emit1(c.scope, &canon.Transpose{Perm: perm}, x)
	if err != nil {
		return nil, err
	}
	out, err := c.b().emit1(c.scope, &canon.ScatterND{Reduction: red}, xt, idx, vals)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Transpose{Perm: inversePerm(perm)}, out)
}

// valuesAs gives an assignment's values x's dtype dt.
func valuesAs(c *opCall, v *tensorVal, dt canon.DType) (*tensorVal, error) {
	vi := c.b().info(v)
	if vi.DType == dt || dt == canon.Undefined {
		return v, nil
	}
	if v.konst != nil && v.konst.NumElements() == 1 {
		if s, ok := scalarOf(v); ok {
			k, err := scalarAs(s.f, dt)
			if err != nil {
				return nil, c.errf("%v", err)
			}
			k.Shape = append([]int64{}, v.konst.Shape...)
			return &tensorVal{konst: k}, nil
		}
	}
	return c.b().emit1(c.scope, &canon.Cast{To: dt}, v)
}

// opUnflatten splits axis dim into sizes: a Reshape whose 0 entries keep
// the other axes' sizes.
func opUnflatten(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "sizes")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	sizes, err := c.ints(2, 0)
	if err != nil {
		return nil, err
	}
	for _, s := range sizes {
		if s == 0 {
			return nil, c.errf("sizes %v has a 0 entry, which the reshape would read as \"keep\"", sizes)
		}
	}
	shape := make([]int64, 0, r-1+len(sizes))
	for range d {
		shape = append(shape, 0)
	}
	shape = append(shape, sizes...)
	// A 0 copies the input's size at the same position, which holds
	// before dim only; later axes need their sizes (or the one -1).
	free := !slices.Contains(sizes, -1)
	vi := c.b().info(x)
	for i := int(d) + 1; i < r; i++ {
		switch {
		case vi.Shape[i].Known():
			shape = append(shape, vi.Shape[i].Size)
		case free:
			shape, free = append(shape, -1), false
		default:
			return nil, c.errf("dimension %d of the input is not known at import; give the input shape (--input-shape NAME=D1,D2,...)", i)
		}
	}
	return c.b().emit1(c.scope, &canon.Reshape{Shape: shape}, x)
}

// opNarrow: x.narrow(dim, start, length) is x[start:start+length] along
// dim; a negative start counts from the end.
func opNarrow(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "start", "length")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	start, err := c.int(2)
	if err != nil {
		return nil, err
	}
	length, err := c.int(3)
	if err != nil {
		return nil, err
	}
	if length < 0 {
		return nil, c.errf("length %d must be >= 0", length)
	}
	if start < 0 {
		shape, err := c.shapeOf(x, "the input")
		if err != nil {
			return nil, err
		}
		start += shape[d]
	}
	return c.b().emit1(c.scope, &canon.Slice{Starts: []int64{start}, Ends: []int64{start + length}, Axes: []int64{d}, Steps: []int64{1}}, x)
}

// opFlip reverses axes: a Slice with step -1 from the last entry past the
// first.
func opFlip(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dims")
	if err != nil {
		return nil, err
	}
	dims, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(dims) == 0 {
		return x, nil
	}
	op := &canon.Slice{}
	for _, d := range dims {
		a, err := c.axis(d, r)
		if err != nil {
			return nil, err
		}
		op.Starts = append(op.Starts, -1)
		op.Ends = append(op.Ends, math.MinInt64)
		op.Axes = append(op.Axes, a)
		op.Steps = append(op.Steps, -1)
	}
	return c.b().emit1(c.scope, op, x)
}

func opIndexSelect(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "index")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	if r, err := c.rankOf(idx, "the index"); err == nil && r > 1 {
		return nil, c.errf("the index has rank %d; index_select takes a 1-D index", r)
	}
	if vi := c.b().info(idx); !vi.RankKnown || len(vi.Shape) != 1 {
		// A 0-D index selects a slice that keeps its axis (of size 1).
		if idx, err = reshape(c, idx, -1); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Gather{Axis: d}, x, idx)
}

// opMaskedFill: x where the mask is false, value where it is true.
func opMaskedFill(c *opCall) (value, error) {
	x, err := c.bindInput("input", "mask", "value")
	if err != nil {
		return nil, err
	}
	mask, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if dt := c.b().info(mask).DType; dt != canon.Bool {
		return nil, c.errf("the mask is %s; masked_fill takes a bool mask", dt)
	}
	dt := c.b().info(x).DType
	var v *tensorVal
	if t, ok := c.bound[2].(*tensorVal); ok && t.konst == nil {
		if r, err := c.rankOf(t, "the value"); err != nil || r != 0 {
			return nil, c.errf("the value must be a number or a 0-d tensor")
		}
		if v, err = castTo(c, t, dt); err != nil {
			return nil, err
		}
	} else {
		s, ok := scalarOf(c.bound[2])
		if !ok {
			return nil, c.errf("the value must be a number or a 0-d tensor, got %s", typeName(c.bound[2]))
		}
		k, err := scalarAs(s.f, dt)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		v = &tensorVal{konst: k}
	}
	return c.b().emit1(c.scope, &canon.Where{}, mask, v, x)
}

// opStack joins tensors on a new axis: each gains it, then Concat.
func opStack(c *opCall) (value, error) {
	if err := c.bind("tensors", "dim=0"); err != nil {
		return nil, err
	}
	if l, ok := c.bound[0].(*runList); ok {
		return c.stackList(l)
	}
	items, ok := listItems(c.bound[0])
	if !ok || len(items) == 0 {
		return nil, c.errf("tensors must be a non-empty list")
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	ins := make([]*tensorVal, len(items))
	for i, it := range items {
		t, ok := it.(*tensorVal)
		if !ok {
			return nil, c.errf("element %d is a %s, not a Tensor", i, typeName(it))
		}
		ins[i] = t
	}
	r, err := c.rankOf(ins[0], "the first tensor")
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r+1); err != nil {
		return nil, err
	}
	for i, t := range ins {
		if ins[i], err = c.b().emit1(c.scope, &canon.Unsqueeze{Axes: []int64{d}}, t); err != nil {
			return nil, err
		}
	}
	if len(ins) == 1 {
		return ins[0], nil
	}
	return c.b().emit1(c.scope, &canon.Concat{Axis: d}, ins...)
}
