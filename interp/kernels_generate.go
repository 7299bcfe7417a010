package interp

import (
	"fmt"
	"math"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the generate family: NonZero, Unique, Range, ConstantOfShape,
// EyeLike, DepthToSpace, SpaceToDepth, ReverseSequence.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"NonZero":         computesF64(fixed(runNonZero)),
		"Unique":          computesF64(withOp(runUnique)),
		"Range":           computesF64(fixed(runRange)),
		"ConstantOfShape": computesF64(withOp(runConstantOfShape)),
		"EyeLike":         computesF64(withOp(runEyeLike)),
		"DepthToSpace":    movesF64(withOp(runDepthToSpace)),
		"SpaceToDepth":    movesF64(withOp(runSpaceToDepth)),
		"ReverseSequence": movesF64(withOp(runReverseSequence)),
	})
}

func (t *tensor) nonzeroAt(i int) bool {
	if t.isFloating() {
		return t.fl(i) != 0
	}
	return t.i[i] != 0
}

func runNonZero(x *exec) error {
	in := x.in(0)
	n := in.size()
	var hits []int
	for i := range n {
		if in.nonzeroAt(i) {
			hits = append(hits, i)
		}
	}
	r := len(in.shape)
	out := x.newI(canon.Int64, []int{r, len(hits)})
	st := elemStrides(in.shape)
	for k, i := range hits {
		for a := range r {
			out.i[a*len(hits)+k] = int64((i / st[a]) % in.shape[a])
		}
	}
	x.set(0, out)
	return nil
}

// cmpSlices orders the slices at a and b (each width elements from their
// offsets) lexicographically; NaN sorts after every number and equals NaN.
func cmpSlices(t *tensor, a, b, width int) int {
	for k := range width {
		if t.isFloating() {
			u, v := t.fl(a+k), t.fl(b+k)
			un, vn := u != u, v != v
			switch {
			case un && vn:
				continue
			case un:
				return 1
			case vn:
				return -1
			case u < v:
				return -1
			case u > v:
				return 1
			}
			continue
		}
		u, v := t.i[a+k], t.i[b+k]
		if t.dt == canon.Uint64 && (u < 0) != (v < 0) { // values past 2^63 are stored negative
			if u < 0 {
				return 1
			}
			return -1
		}
		if u < v {
			return -1
		}
		if u > v {
			return 1
		}
	}
	return 0
}

func runUnique(x *exec, op *canon.Unique) error {
	in := x.in(0)
	// View X as (outer, n, inner): the unique items are the n slices along
	// the axis, each outer·inner elements (n = all elements when flattened).
	outer, n, inner, axis := 1, in.size(), 1, 0
	if !op.Flatten {
		a, err := normAxis(op.Axis, len(in.shape))
		if err != nil {
			return err
		}
		axis = a
		outer, n, inner = numel(in.shape[:a]), in.shape[a], numel(in.shape[a+1:])
	}
	// Gather each slice contiguously so slices compare as flat rows.
	width := outer * inner
	rows := x.newLike(in, []int{n * width})
	for o := range outer {
		for j := range n {
			for k := range inner {
				src := (o*n+j)*inner + k
				dst := j*width + o*inner + k
				copyElem(rows, dst, in, src)
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(p, q int) bool { return cmpSlices(rows, order[p]*width, order[q]*width, width) < 0 })
	type group struct{ first, count int }
	var groups []group
	groupOf := make([]int, n)
	for k, i := range order {
		if k == 0 || cmpSlices(rows, order[k-1]*width, i*width, width) != 0 {
			groups = append(groups, group{first: i})
		}
		g := len(groups) - 1
		groups[g].count++
		groups[g].first = min(groups[g].first, i)
		groupOf[i] = g
	}
	rank := make([]int, len(groups)) // position of each group in the output
	for g := range rank {
		rank[g] = g
	}
	if !op.Sorted {
		pos := make([]int, len(groups))
		for g := range pos {
			pos[g] = g
		}
		sort.Slice(pos, func(p, q int) bool { return groups[pos[p]].first < groups[pos[q]].first })
		for r, g := range pos {
			rank[g] = r
		}
	}
	m := len(groups)
	var yShape []int
	if op.Flatten {
		yShape = []int{m}
	} else {
		yShape = append([]int{}, in.shape...)
		yShape[axis] = m
	}
	y := x.newLike(in, yShape)
	idx, inv, cnt := x.newI(canon.Int64, []int{m}), x.newI(canon.Int64, []int{n}), x.newI(canon.Int64, []int{m})
	for g, gr := range groups {
		r := rank[g]
		idx.i[r] = int64(gr.first)
		cnt.i[r] = int64(gr.count)
		for o := range outer {
			for k := range inner {
				src := (o*n+gr.first)*inner + k
				dst := (o*m+r)*inner + k
				copyElem(y, dst, in, src)
			}
		}
	}
	for i := range n {
		inv.i[i] = int64(rank[groupOf[i]])
	}
	x.p.pool.put(rows)
	x.set(0, y)
	x.set(1, idx)
	x.set(2, inv)
	x.set(3, cnt)
	return nil
}

// scalarOf reads input k, which must hold exactly one element.
func scalarOf(t *tensor, what string) (float64, int64, error) {
	if t.size() != 1 {
		return 0, 0, fmt.Errorf("%s has %d elements (shape %v), want a scalar", what, t.size(), t.shape)
	}
	if t.isFloating() {
		return t.fl(0), 0, nil
	}
	return 0, t.i[0], nil
}

func runRange(x *exec) error {
	s, l, d := x.in(0), x.in(1), x.in(2)
	if s.dt != l.dt || s.dt != d.dt {
		return fmt.Errorf("start, limit and delta must have one dtype, got %s, %s and %s", s.dt, l.dt, d.dt)
	}
	fs, is, err := scalarOf(s, "start")
	if err != nil {
		return err
	}
	fl, il, err := scalarOf(l, "limit")
	if err != nil {
		return err
	}
	fd, id, err := scalarOf(d, "delta")
	if err != nil {
		return err
	}
	if s.isFloating() {
		if fd == 0 {
			return fmt.Errorf("delta is 0")
		}
		n := canon.RangeLength(fs, fl, fd)
		if n > math.MaxInt32 {
			return fmt.Errorf("range from %v to %v by %v has %d entries, too many", fs, fl, fd, n)
		}
		if s.isF64() {
			out := x.newD([]int{int(n)})
			v := fs
			for i := range out.d {
				out.d[i] = v
				v += fd
			}
			x.set(0, out)
			return nil
		}
		out := x.newF([]int{int(n)})
		// ONNX Runtime accumulates: each entry is the previous plus delta.
		v, step := float32(fs), float32(fd)
		for i := range out.f {
			out.f[i] = v
			v += step
		}
		x.set(0, out)
		return nil
	}
	if id == 0 {
		return fmt.Errorf("delta is 0")
	}
	n := canon.RangeLengthInt(is, il, id)
	if n < 0 || n > math.MaxInt32 {
		return fmt.Errorf("range from %d to %d by %d has too many entries", is, il, id)
	}
	out := x.newI(s.dt, []int{int(n)})
	for i := range out.i {
		out.i[i] = is + int64(i)*id
	}
	x.set(0, out)
	return nil
}

func runConstantOfShape(x *exec, op *canon.ConstantOfShape) error {
	shape64 := op.Shape
	if st := x.in(0); st != nil {
		if st.isFloating() || len(st.shape) != 1 {
			return fmt.Errorf("the shape input must be a 1-D integer tensor, got %s %v", st.dt, st.shape)
		}
		shape64 = st.i
	}
	shape := make([]int, len(shape64))
	for i, d := range shape64 {
		if d < 0 || d > math.MaxInt32 {
			return fmt.Errorf("shape %v has a negative or too large size", shape64)
		}
		shape[i] = int(d)
	}
	v, err := fromCanon(op.Value, false)
	if err != nil {
		return err
	}
	var out *tensor
	switch {
	case v.isF64():
		out = x.newD(shape)
		for i := range out.d {
			out.d[i] = v.d[0]
		}
	case v.isFloat():
		out = x.newF(shape)
		for i := range out.f {
			out.f[i] = v.f[0]
		}
		out.dt = v.dt
	default:
		out = x.newI(v.dt, shape)
		for i := range out.i {
			out.i[i] = v.i[0]
		}
	}
	x.set(0, out)
	return nil
}

func runEyeLike(x *exec, op *canon.EyeLike) error {
	in := x.in(0)
	if len(in.shape) != 2 {
		return fmt.Errorf("input has shape %v, want a matrix", in.shape)
	}
	rows, cols := in.shape[0], in.shape[1]
	var out *tensor
	switch {
	case op.DType == canon.Float64:
		out = x.newD([]int{rows, cols})
		clear(out.d)
	case op.DType.IsFloat():
		out = x.newZF(in.shape)
		out.dt = op.DType
	default:
		out = x.newI(op.DType, []int{rows, cols})
		clear(out.i)
	}
	for r := range rows {
		c := int64(r) + op.K
		if c < 0 || c >= int64(cols) {
			continue
		}
		out.setNum(r*cols+int(c), 1)
	}
	x.set(0, out)
	return nil
}

// shuffle sets out[o] = in[src[o]] for every output offset.
func (x *exec) shuffle(in *tensor, shape []int, src func(o int) int) *tensor {
	out := x.newLike(in, shape)
	for o := range out.size() {
		if in.isFloat() {
			out.f[o] = in.f[src(o)]
		} else {
			out.i[o] = in.i[src(o)]
		}
	}
	return out
}

func runDepthToSpace(x *exec, op *canon.DepthToSpace) error {
	in := x.in(0)
	if len(in.shape) != 4 {
		return fmt.Errorf("input has shape %v, want (N, C, H, W)", in.shape)
	}
	b := int(op.Blocksize)
	n, c, h, w := in.shape[0], in.shape[1], in.shape[2], in.shape[3]
	if c%(b*b) != 0 {
		return fmt.Errorf("input has %d channels, not a multiple of blocksize² = %d", c, b*b)
	}
	oc, oh, ow := c/(b*b), h*b, w*b
	out := x.shuffle(in, []int{n, oc, oh, ow}, func(o int) int {
		xw := o % ow
		yh := (o / ow) % oh
		ch := (o / (ow * oh)) % oc
		bn := o / (ow * oh * oc)
		bh, bw := yh%b, xw%b
		var ic int
		if op.CRD {
			ic = (ch*b+bh)*b + bw
		} else {
			ic = (bh*b+bw)*oc + ch
		}
		return ((bn*c+ic)*h+yh/b)*w + xw/b
	})
	x.set(0, out)
	return nil
}

func runSpaceToDepth(x *exec, op *canon.SpaceToDepth) error {
	in := x.in(0)
	if len(in.shape) != 4 {
		return fmt.Errorf("input has shape %v, want (N, C, H, W)", in.shape)
	}
	b := int(op.Blocksize)
	n, c, h, w := in.shape[0], in.shape[1], in.shape[2], in.shape[3]
	if h%b != 0 || w%b != 0 {
		return fmt.Errorf("input has shape %v: H and W must be multiples of blocksize %d", in.shape, b)
	}
	oc, oh, ow := c*b*b, h/b, w/b
	out := x.shuffle(in, []int{n, oc, oh, ow}, func(o int) int {
		xw := o % ow
		yh := (o / ow) % oh
		ch := (o / (ow * oh)) % oc
		bn := o / (ow * oh * oc)
		blk, ic := ch/c, ch%c
		bh, bw := blk/b, blk%b
		return ((bn*c+ic)*h+yh*b+bh)*w + xw*b + bw
	})
	x.set(0, out)
	return nil
}

func runReverseSequence(x *exec, op *canon.ReverseSequence) error {
	in, lens := x.in(0), x.in(1)
	if len(in.shape) < 2 {
		return fmt.Errorf("input has shape %v, want rank >= 2", in.shape)
	}
	ba, ta := int(op.BatchAxis), int(op.TimeAxis)
	batch, steps := in.shape[ba], in.shape[ta]
	if lens.isFloat() || len(lens.i) != batch {
		return fmt.Errorf("sequence_lens has %d entries (%s), want %d integers (one per batch entry)", lens.size(), lens.dt, batch)
	}
	for _, l := range lens.i {
		if l < 0 || l > int64(steps) {
			return fmt.Errorf("sequence length %d is outside [0, %d] (the time axis)", l, steps)
		}
	}
	st := elemStrides(in.shape)
	out := x.shuffle(in, append([]int{}, in.shape...), func(o int) int {
		bi := (o / st[ba]) % batch
		t := (o / st[ta]) % steps
		if l := int(lens.i[bi]); t < l {
			return o + (l-1-2*t)*st[ta]
		}
		return o
	})
	x.set(0, out)
	return nil
}
