package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the indexing family. Indices follow ONNX: negative values
// count from the end; out-of-range values are an error naming the node
// (runStep adds the name), except in OneHot, where ONNX defines them.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"GatherElements":  movesF64(withOp(runGatherElements)),
		"GatherND":        movesF64(withOp(runGatherND)),
		"ScatterElements": movesF64(withOp(runScatterElements)),
		"ScatterND":       movesF64(withOp(runScatterND)),
		"OneHot":          movesF64(withOp(runOneHot)),
		"Compress":        movesF64(withOp(runCompress)),
		"Trilu":           movesF64(withOp(runTrilu)),
	})
}

// elemStrides are the row-major strides of shape.
func elemStrides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = n
		n *= shape[i]
	}
	return s
}

// index resolves index v on an axis of size dim (negative from the end).
func index(v int64, dim int, axis int) (int, error) {
	d := int64(dim)
	if v < -d || v >= d {
		return 0, fmt.Errorf("index %d is out of range for axis %d of size %d", v, axis, dim)
	}
	if v < 0 {
		v += d
	}
	return int(v), nil
}

func needIndexTensor(t *tensor, what string) error {
	if t.isFloat() || t.dt == canon.Bool {
		return fmt.Errorf("%s are %s, want integers", what, t.dt)
	}
	return nil
}

// alongAxis maps every position of the index tensor idx (of data's rank)
// to the data offset it addresses along axis: the position itself, with
// the axis coordinate replaced by the index there.
func alongAxis(data, idx *tensor, axis int) ([]int, error) {
	r := len(data.shape)
	if len(idx.shape) != r {
		return nil, fmt.Errorf("indices have shape %v, data %v; their ranks must be equal", idx.shape, data.shape)
	}
	for i := range r {
		if i != axis && idx.shape[i] > data.shape[i] {
			return nil, fmt.Errorf("indices have shape %v, larger than data %v on axis %d", idx.shape, data.shape, i)
		}
	}
	ds := elemStrides(data.shape)
	offs := make([]int, len(idx.i))
	coord := make([]int, r)
	for j, v := range idx.i {
		a, err := index(v, data.shape[axis], axis)
		if err != nil {
			return nil, err
		}
		o := a * ds[axis]
		for k := range r {
			if k != axis {
				o += coord[k] * ds[k]
			}
		}
		offs[j] = o
		for k := r - 1; k >= 0; k-- {
			coord[k]++
			if coord[k] < idx.shape[k] {
				break
			}
			coord[k] = 0
		}
	}
	return offs, nil
}

func runGatherElements(x *exec, op *canon.GatherElements) error {
	data, idx := x.in(0), x.in(1)
	if err := needIndexTensor(idx, "indices"); err != nil {
		return err
	}
	axis, err := normAxis(op.Axis, len(data.shape))
	if err != nil {
		return err
	}
	offs, err := alongAxis(data, idx, axis)
	if err != nil {
		return err
	}
	out := x.newLike(data, append([]int{}, idx.shape...))
	for j, o := range offs {
		if data.isFloat() {
			out.f[j] = data.f[o]
		} else {
			out.i[j] = data.i[o]
		}
	}
	x.set(0, out)
	return nil
}

// tupleOffsets resolves the index tuples on the last axis of idx into
// offsets in data, whose axes from first on they address; it returns the
// offsets and the tuple length.
func tupleOffsets(data, idx *tensor, first int) ([]int, int, error) {
	q := len(idx.shape)
	if q < 1 {
		return nil, 0, fmt.Errorf("indices are a scalar; they need rank >= 1")
	}
	k := idx.shape[q-1]
	if first+k > len(data.shape) {
		return nil, 0, fmt.Errorf("index tuples of length %d address axes %d.. of data %v, which has rank %d", k, first, data.shape, len(data.shape))
	}
	ds := elemStrides(data.shape)
	n := 0
	if k > 0 {
		n = len(idx.i) / k
	} else {
		n = numel(idx.shape[:q-1])
	}
	offs := make([]int, n)
	for t := range n {
		o := 0
		for a := range k {
			v, err := index(idx.i[t*k+a], data.shape[first+a], first+a)
			if err != nil {
				return nil, 0, err
			}
			o += v * ds[first+a]
		}
		offs[t] = o
	}
	return offs, k, nil
}

func runGatherND(x *exec, op *canon.GatherND) error {
	data, idx := x.in(0), x.in(1)
	if err := needIndexTensor(idx, "indices"); err != nil {
		return err
	}
	b, q := int(op.BatchDims), len(idx.shape)
	if b >= q || b >= len(data.shape) {
		return fmt.Errorf("batch_dims %d must be below the ranks of data %v and indices %v", b, data.shape, idx.shape)
	}
	for i := range b {
		if data.shape[i] != idx.shape[i] {
			return fmt.Errorf("batch axis %d has size %d in data %v but %d in indices %v", i, data.shape[i], data.shape, idx.shape[i], idx.shape)
		}
	}
	// Each batch entry is a GatherND of its own data and index blocks.
	batches := numel(data.shape[:b])
	sub := &tensor{dt: data.dt, shape: data.shape[b:]}
	subIdx := &tensor{dt: idx.dt, shape: idx.shape[b:]}
	k := idx.shape[q-1]
	if b+k > len(data.shape) {
		return fmt.Errorf("index tuples of length %d address more than the %d axes of data %v after %d batch axes", k, len(data.shape)-b, data.shape, b)
	}
	slice := numel(data.shape[b+k:])
	dataBlock, idxBlock := numel(data.shape[b:]), numel(idx.shape[b:])
	shape := append(append([]int{}, idx.shape[:q-1]...), data.shape[b+k:]...)
	out := x.newLike(data, shape)
	dst := 0
	for bi := range batches {
		subIdx.i = idx.i[bi*idxBlock : (bi+1)*idxBlock]
		offs, _, err := tupleOffsets(sub, subIdx, 0)
		if err != nil {
			return err
		}
		base := bi * dataBlock
		for _, o := range offs {
			if data.isFloat() {
				copy(out.f[dst:dst+slice], data.f[base+o:base+o+slice])
			} else {
				copy(out.i[dst:dst+slice], data.i[base+o:base+o+slice])
			}
			dst += slice
		}
	}
	x.set(0, out)
	return nil
}

// copyOf is a fresh copy of t.
func (x *exec) copyOf(t *tensor) *tensor {
	out := x.newLike(t, append([]int{}, t.shape...))
	copy(out.f, t.f)
	copy(out.d, t.d)
	copy(out.i, t.i)
	return out
}

// scatter applies updates src[j] (slices of length slice) at offsets
// offs[j] of dst, combined by r.
func scatter(dst, src *tensor, offs []int, slice int, r canon.ScatterReduction) {
	if dst.isFloat() {
		for j, o := range offs {
			d, s := dst.f[o:o+slice], src.f[j*slice:(j+1)*slice]
			for e := range d {
				switch r {
				case canon.ScatterNone:
					d[e] = s[e]
				case canon.ScatterAdd:
					d[e] += s[e]
				case canon.ScatterMul:
					d[e] *= s[e]
				case canon.ScatterMax:
					d[e] = float32(math.Max(float64(d[e]), float64(s[e])))
				case canon.ScatterMin:
					d[e] = float32(math.Min(float64(d[e]), float64(s[e])))
				}
			}
		}
		return
	}
	if dst.dt == canon.Float64 && r != canon.ScatterNone {
		scatterF64Bits(dst, src, offs, slice, r)
		return
	}
	unsigned := dst.dt == canon.Uint64
	less := func(a, b int64) bool {
		if unsigned {
			return uint64(a) < uint64(b)
		}
		return a < b
	}
	for j, o := range offs {
		d, s := dst.i[o:o+slice], src.i[j*slice:(j+1)*slice]
		for e := range d {
			switch r {
			case canon.ScatterNone:
				d[e] = s[e]
			case canon.ScatterAdd:
				d[e] += s[e]
			case canon.ScatterMul:
				d[e] *= s[e]
			case canon.ScatterMax:
				if less(d[e], s[e]) {
					d[e] = s[e]
				}
			case canon.ScatterMin:
				if less(s[e], d[e]) {
					d[e] = s[e]
				}
			}
		}
	}
	// Sums and products wrap at the declared width.
	wrapInts(dst.dt, dst.i)
}

func needSameKind(data, upd *tensor) error {
	if data.dt != upd.dt {
		return fmt.Errorf("updates are %s but data is %s; they must have the same dtype", upd.dt, data.dt)
	}
	return nil
}

func runScatterElements(x *exec, op *canon.ScatterElements) error {
	data, idx, upd := x.in(0), x.in(1), x.in(2)
	if err := needIndexTensor(idx, "indices"); err != nil {
		return err
	}
	if err := needSameKind(data, upd); err != nil {
		return err
	}
	if fmt.Sprint(idx.shape) != fmt.Sprint(upd.shape) {
		return fmt.Errorf("indices %v and updates %v must have the same shape", idx.shape, upd.shape)
	}
	axis, err := normAxis(op.Axis, len(data.shape))
	if err != nil {
		return err
	}
	offs, err := alongAxis(data, idx, axis)
	if err != nil {
		return err
	}
	out := x.copyOf(data)
	scatter(out, upd, offs, 1, op.Reduction)
	x.set(0, out)
	return nil
}

func runScatterND(x *exec, op *canon.ScatterND) error {
	data, idx, upd := x.in(0), x.in(1), x.in(2)
	if err := needIndexTensor(idx, "indices"); err != nil {
		return err
	}
	if err := needSameKind(data, upd); err != nil {
		return err
	}
	offs, k, err := tupleOffsets(data, idx, 0)
	if err != nil {
		return err
	}
	want := append(append([]int{}, idx.shape[:len(idx.shape)-1]...), data.shape[k:]...)
	if fmt.Sprint(want) != fmt.Sprint(upd.shape) {
		return fmt.Errorf("updates have shape %v, want %v", upd.shape, want)
	}
	out := x.copyOf(data)
	scatter(out, upd, offs, numel(data.shape[k:]), op.Reduction)
	x.set(0, out)
	return nil
}

// firstInt reads a one-element numeric tensor as an integer (floats
// truncated).
func firstInt(t *tensor, what string) (int64, error) {
	if t.size() != 1 {
		return 0, fmt.Errorf("%s has shape %v, want one element", what, t.shape)
	}
	if t.dt.IsFloat() {
		f := t.bitsOrFloat(0)
		if math.IsNaN(f) || math.Abs(f) > 1<<62 {
			return 0, fmt.Errorf("%s is %v, not an integer", what, f)
		}
		return int64(f), nil
	}
	return t.i[0], nil
}

func runOneHot(x *exec, op *canon.OneHot) error {
	idx, vals := x.in(0), x.in(1)
	if vals.size() != 2 {
		return fmt.Errorf("values have shape %v, want [2] (off value, on value)", vals.shape)
	}
	depth := op.Depth
	if d := x.in(2); d != nil {
		v, err := firstInt(d, "depth")
		if err != nil {
			return err
		}
		depth = v
	}
	if depth < 1 || depth > math.MaxInt32 {
		return fmt.Errorf("depth is %d, must be between 1 and %d", depth, math.MaxInt32)
	}
	r := len(idx.shape)
	a, err := normAxis(op.Axis, r+1)
	if err != nil {
		return err
	}
	D := int(depth)
	shape := append(append(append([]int{}, idx.shape[:a]...), D), idx.shape[a:]...)
	outer, inner := numel(idx.shape[:a]), numel(idx.shape[a:])
	out := x.newLike(vals, shape)
	unsigned := idx.dt == canon.Uint64
	for o := range outer {
		for in := range inner {
			var v int64
			if idx.dt.IsFloat() {
				f := idx.bitsOrFloat(o*inner + in)
				// NaN and huge values address no class.
				v = -1 << 62
				if !math.IsNaN(f) && math.Abs(f) < 1<<62 {
					v = int64(f)
				}
			} else {
				v = idx.i[o*inner+in]
				if unsigned && v < 0 {
					v = math.MaxInt64 // beyond any depth
				}
			}
			if v < 0 && op.NegativeIndices && v >= -depth {
				v += depth
			}
			for d := range D {
				k := (o*D+d)*inner + in
				on := int64(d) == v
				if vals.isFloat() {
					out.f[k] = vals.f[0]
					if on {
						out.f[k] = vals.f[1]
					}
				} else { // integers, and float64 carried by its bits
					out.i[k] = vals.i[0]
					if on {
						out.i[k] = vals.i[1]
					}
				}
			}
		}
	}
	x.set(0, out)
	return nil
}

func runCompress(x *exec, op *canon.Compress) error {
	in, cond := x.in(0), x.in(1)
	if cond.dt != canon.Bool || len(cond.shape) != 1 {
		return fmt.Errorf("condition is %s%v, want a 1-D bool tensor", cond.dt, cond.shape)
	}
	shape := []int{in.size()}
	axis := 0
	if !op.Flatten {
		a, err := normAxis(op.Axis, len(in.shape))
		if err != nil {
			return err
		}
		axis, shape = a, in.shape
	}
	dim := shape[axis]
	if len(cond.i) > dim {
		return fmt.Errorf("condition has %d entries, more than the %d it selects from", len(cond.i), dim)
	}
	var keep []int
	for j, c := range cond.i {
		if c != 0 {
			keep = append(keep, j)
		}
	}
	outer, inner := numel(shape[:axis]), numel(shape[axis+1:])
	outShape := append([]int{}, shape...)
	outShape[axis] = len(keep)
	out := x.newLike(in, outShape)
	for o := range outer {
		for j, k := range keep {
			src, dst := (o*dim+k)*inner, (o*len(keep)+j)*inner
			if in.isFloat() {
				copy(out.f[dst:dst+inner], in.f[src:src+inner])
			} else {
				copy(out.i[dst:dst+inner], in.i[src:src+inner])
			}
		}
	}
	x.set(0, out)
	return nil
}

func runTrilu(x *exec, op *canon.Trilu) error {
	in := x.in(0)
	r := len(in.shape)
	if r < 2 {
		return fmt.Errorf("input has shape %v; Trilu needs rank >= 2", in.shape)
	}
	k := op.K
	if t := x.in(1); t != nil {
		if t.isFloat() || t.size() != 1 {
			return fmt.Errorf("k is %s%v, want an i64 scalar", t.dt, t.shape)
		}
		k = t.i[0]
	}
	out := x.copyOf(in)
	rows, cols := in.shape[r-2], in.shape[r-1]
	for b := range numel(in.shape[:r-2]) {
		for i := range rows {
			for j := range cols {
				d := int64(j) - int64(i)
				if (op.Upper && d >= k) || (!op.Upper && d <= k) {
					continue
				}
				e := (b*rows+i)*cols + j
				if out.isFloat() {
					out.f[e] = 0
				} else {
					out.i[e] = 0
				}
			}
		}
	}
	x.set(0, out)
	return nil
}
