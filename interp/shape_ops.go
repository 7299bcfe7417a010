package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// gatherAxes fills dst (row-major, shape len(maps[k]) per axis) with
// src[maps[0][i0], maps[1][i1], ...]; an index of -1 on any axis yields
// fill. Slice, Pad and Resize are all this one loop with different maps.
func gatherAxes[T float32 | int64](dst, src []T, srcShape []int, maps [][]int, fill T) {
	r := len(maps)
	if r == 0 {
		dst[0] = src[0]
		return
	}
	str := make([]int, r)
	acc := 1
	for k := r - 1; k >= 0; k-- {
		str[k] = acc
		acc *= srcShape[k]
	}
	last := maps[r-1]
	n := len(last)
	if len(dst) == 0 {
		return
	}
	// A last map that is a run of consecutive indices (a Slice with step
	// 1, a Split) copies each row whole.
	run := n > 0 && last[0] >= 0
	for i := 1; run && i < n; i++ {
		run = last[i] == last[0]+i
	}
	// Rows are independent: large gathers split them between cores, each
	// part starting from its first row's index.
	parallelFor(len(dst)/n, n, func(lo, hi int) {
		gatherRows(dst, src, maps, str, lo, hi, run, fill)
	})
}

// gatherRows is gatherAxes on output rows lo..hi (rows of the last map's
// length), str the source's strides, run whether the last map is a run of
// consecutive indices.
func gatherRows[T float32 | int64](dst, src []T, maps [][]int, str []int, lo, hi int, run bool, fill T) {
	r := len(maps)
	last := maps[r-1]
	n := len(last)
	idx := make([]int, r)
	for k, q := r-2, lo; k >= 0; k-- {
		idx[k], q = q%len(maps[k]), q/len(maps[k])
	}
	for o := lo * n; o < hi*n; o += n {
		base, ok := 0, true
		for k := 0; k < r-1; k++ {
			m := maps[k][idx[k]]
			if m < 0 {
				ok = false
				break
			}
			base += m * str[k]
		}
		row := dst[o : o+n]
		if !ok {
			for i := range row {
				row[i] = fill
			}
		} else if run {
			copy(row, src[base+last[0]:])
		} else {
			for i, m := range last {
				if m < 0 {
					row[i] = fill
				} else {
					row[i] = src[base+m]
				}
			}
		}
		for k := r - 2; k >= 0; k-- {
			idx[k]++
			if idx[k] < len(maps[k]) {
				break
			}
			idx[k] = 0
		}
	}
}

func (x *exec) gatherT(src *tensor, maps [][]int, fill float32) *tensor {
	shape := make([]int, len(maps))
	for k, m := range maps {
		shape[k] = len(m)
	}
	out := x.newLike(src, shape)
	if src.isFloat() {
		gatherAxes(out.f, src.f, src.shape, maps, fill)
	} else {
		gatherAxes(out.i, src.i, src.shape, maps, int64(fill))
	}
	return out
}

// reshaped returns input 0's data under a new shape: its own buffer when
// it is dead after this node, a copy otherwise.
func (x *exec) reshaped(shape []int) *tensor {
	in := x.in(0)
	if t := x.take(0); t != nil {
		t.shape = shape
		return t
	}
	if in.dt == canon.String {
		return &tensor{dt: canon.String, shape: shape, s: in.s} // strings are never written in place
	}
	out := x.newLike(in, shape)
	copy(out.f, in.f)
	copy(out.i, in.i)
	copy(out.d, in.d)
	return out
}

func runIdentity(x *exec) error {
	x.set(0, x.reshaped(x.in(0).shape))
	return nil
}

func runDropout(x *exec) error {
	in := x.in(0)
	if err := dropsNothing(x); err != nil {
		return err
	}
	shape := in.shape
	x.set(0, x.reshaped(shape))
	if x.nout() > 1 && x.s.out[1] >= 0 {
		m := x.newI(canon.Bool, shape)
		for i := range m.i {
			m.i[i] = 1
		}
		x.set(1, m)
	}
	return nil
}

func runReshape(x *exec, op *canon.Reshape) error {
	in := x.in(0)
	target := op.Shape
	if target == nil {
		st := x.in(1)
		if st == nil {
			return fmt.Errorf("no target shape: neither the Shape attribute nor the second input is set")
		}
		if st.isFloat() || len(st.shape) != 1 {
			return fmt.Errorf("target shape input is %s%v, want a 1-D integer tensor", st.dt, st.shape)
		}
		target = st.i
	}
	shape, err := reshapeTarget(in.shape, target, op.AllowZero)
	if err != nil {
		return err
	}
	x.set(0, x.reshaped(shape))
	return nil
}

// reshapeTarget is the shape Reshape gives an input of shape in for the
// target target (0 copies the input's axis unless allowZero, -1 takes the
// rest).
func reshapeTarget(in []int, target []int64, allowZero bool) ([]int, error) {
	shape := make([]int, len(target))
	infer, known := -1, 1
	for i, d := range target {
		switch {
		case d == 0 && !allowZero:
			if i >= len(in) {
				return nil, fmt.Errorf("target %v copies axis %d (0) but the input %v has rank %d", target, i, in, len(in))
			}
			shape[i] = in[i]
		case d == -1:
			if infer >= 0 {
				return nil, fmt.Errorf("target %v has more than one -1", target)
			}
			infer = i
			continue
		case d < 0 || d > math.MaxInt32*64:
			return nil, fmt.Errorf("target %v has invalid dimension %d", target, d)
		default:
			shape[i] = int(d)
		}
		known *= shape[i]
	}
	n := numel(in)
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return nil, fmt.Errorf("cannot reshape %v (%d elements) into %v", in, n, target)
		}
		shape[infer] = n / known
	} else if known != n {
		return nil, fmt.Errorf("cannot reshape %v (%d elements) into %v (%d elements)", in, n, target, known)
	}
	return shape, nil
}

func runFlatten(x *exec, op *canon.Flatten) error {
	in := x.in(0)
	r := len(in.shape)
	axis := int(op.Axis)
	if axis < 0 {
		axis += r
	}
	if axis < 0 || axis > r {
		return fmt.Errorf("axis %d is out of range for rank %d", op.Axis, r)
	}
	x.set(0, x.reshaped([]int{numel(in.shape[:axis]), numel(in.shape[axis:])}))
	return nil
}

func runSqueeze(x *exec, op *canon.Squeeze) error {
	in := x.in(0)
	axes, err := x.intsParam(1, op.Axes, "axes")
	if err != nil {
		return err
	}
	drop := make([]bool, len(in.shape))
	if len(axes) == 0 {
		for i, d := range in.shape {
			drop[i] = d == 1
		}
	}
	for _, a := range axes {
		ax, err := normAxis(a, len(in.shape))
		if err != nil {
			return err
		}
		if in.shape[ax] != 1 {
			return fmt.Errorf("cannot squeeze axis %d of shape %v: size is not 1", a, in.shape)
		}
		drop[ax] = true
	}
	shape := []int{}
	for i, d := range in.shape {
		if !drop[i] {
			shape = append(shape, d)
		}
	}
	x.set(0, x.reshaped(shape))
	return nil
}

func runUnsqueeze(x *exec, op *canon.Unsqueeze) error {
	in := x.in(0)
	list, err := x.intsParam(1, op.Axes, "axes")
	if err != nil {
		return err
	}
	r := len(in.shape) + len(list)
	axes, err := sortedAxes(list, r)
	if err != nil {
		return err
	}
	shape := make([]int, 0, r)
	j, k := 0, 0
	for i := 0; i < r; i++ {
		if k < len(axes) && axes[k] == i {
			shape = append(shape, 1)
			k++
			continue
		}
		shape = append(shape, in.shape[j])
		j++
	}
	x.set(0, x.reshaped(shape))
	return nil
}

func runConcat(x *exec, op *canon.Concat) error {
	var ins []*tensor
	for k := range x.s.in {
		if t := x.in(k); t != nil {
			ins = append(ins, t)
		}
	}
	if len(ins) == 0 {
		return fmt.Errorf("no inputs")
	}
	first := ins[0]
	axis, err := normAxis(op.Axis, len(first.shape))
	if err != nil {
		return err
	}
	shape := append([]int{}, first.shape...)
	shape[axis] = 0
	for k, t := range ins {
		if t.isFloat() != first.isFloat() || (!t.isFloat() && t.dt != first.dt) {
			return fmt.Errorf("input %d is %s, input 0 is %s", k, t.dt, first.dt)
		}
		if len(t.shape) != len(shape) {
			return fmt.Errorf("input %d has shape %v, input 0 has %v: ranks differ", k, t.shape, first.shape)
		}
		for i, d := range t.shape {
			if i != axis && d != shape[i] {
				return fmt.Errorf("input %d has shape %v, input 0 has %v: they differ outside axis %d", k, t.shape, first.shape, axis)
			}
		}
		shape[axis] += t.shape[axis]
	}
	out := x.newLike(first, shape)
	rowOut := numel(shape[axis:])
	chunks := make([]int, len(ins)) // each input's part of an output row
	for k, t := range ins {
		chunks[k] = numel(t.shape[axis:])
	}
	// The output's elements split between cores, each worker copying the
	// pieces of the inputs its range covers (deeplabv3's ASPP concat of
	// five 256×16×16 maps, or a transformer's class token).
	n := numel(shape)
	parallelFor(n, 1, func(lo, hi int) {
		for pos := lo; pos < hi; {
			o, r := pos/rowOut, pos%rowOut
			k, off := 0, 0
			for off+chunks[k] <= r {
				off += chunks[k]
				k++
			}
			m := min(hi-pos, off+chunks[k]-r)
			src := o*chunks[k] + r - off
			if first.isFloat() {
				copy(out.f[pos:pos+m], ins[k].f[src:src+m])
			} else {
				copy(out.i[pos:pos+m], ins[k].i[src:src+m])
			}
			pos += m
		}
	})
	x.set(0, out)
	return nil
}

func runSplit(x *exec, op *canon.Split) error {
	in := x.in(0)
	axis, err := normAxis(op.Axis, len(in.shape))
	if err != nil {
		return err
	}
	dim := in.shape[axis]
	sizes, err := x.intsParam(1, op.Sizes, "split sizes")
	if err != nil {
		return err
	}
	if sizes == nil {
		// Equal parts; the last may be smaller (opset 18 rule).
		n := x.nout()
		part := (dim + n - 1) / n
		for k := 0; k < n; k++ {
			sizes = append(sizes, int64(max(0, min(part, dim-k*part))))
		}
	}
	if len(sizes) != x.nout() {
		return fmt.Errorf("split sizes %v: want %d values, one per output", sizes, x.nout())
	}
	total := int64(0)
	for _, s := range sizes {
		if s < 0 {
			return fmt.Errorf("split sizes %v: negative size", sizes)
		}
		total += s
	}
	if total != int64(dim) {
		return fmt.Errorf("split sizes %v add up to %d, axis %d of %v has %d", sizes, total, axis, in.shape, dim)
	}
	outer, inner := numel(in.shape[:axis]), numel(in.shape[axis+1:])
	start := 0
	for k, s := range sizes {
		shape := append([]int{}, in.shape...)
		shape[axis] = int(s)
		out := x.newLike(in, shape)
		chunk := int(s) * inner
		for o := 0; o < outer; o++ {
			src := o*dim*inner + start*inner
			if in.isFloat() {
				copy(out.f[o*chunk:(o+1)*chunk], in.f[src:src+chunk])
			} else {
				copy(out.i[o*chunk:(o+1)*chunk], in.i[src:src+chunk])
			}
		}
		start += int(s)
		x.set(k, out)
	}
	return nil
}

func runTranspose(x *exec, op *canon.Transpose) error {
	in := x.in(0)
	r := len(in.shape)
	perm := op.Perm
	if perm == nil {
		for i := r - 1; i >= 0; i-- {
			perm = append(perm, int64(i))
		}
	}
	if len(perm) != r {
		return fmt.Errorf("perm %v has %d entries, input %v has rank %d", perm, len(perm), in.shape, r)
	}
	seen := make([]bool, r)
	shape := make([]int, r)
	for i, p := range perm {
		if p < 0 || p >= int64(r) || seen[p] {
			return fmt.Errorf("perm %v is not a permutation of 0..%d", perm, r-1)
		}
		seen[p] = true
		shape[i] = in.shape[p]
	}
	if keepsOrder(in.shape, perm) {
		// Only axes of size 1 move: the elements stay in order.
		x.set(0, x.reshaped(shape))
		return nil
	}
	out := x.newLike(in, shape)
	istr := make([]int, r)
	acc := 1
	for k := r - 1; k >= 0; k-- {
		istr[k] = acc
		acc *= in.shape[k]
	}
	ostr := make([]int, r) // input stride for each output axis
	for i, p := range perm {
		ostr[i] = istr[p]
	}
	batch, rows, cols, ok := blockSwap(in.shape, perm)
	switch {
	case ok && in.isFloat():
		transposeBlocks(out.f, in.f, batch, rows, cols)
	case ok:
		transposeBlocks(out.i, in.i, batch, rows, cols)
	case in.isFloat():
		permute(out.f, in.f, shape, ostr)
	default:
		permute(out.i, in.i, shape, ostr)
	}
	x.set(0, out)
	return nil
}

// blockSwap reports whether perm keeps some leading axes and swaps the two
// blocks of axes after them (NCHW to NHWC, or the last two axes): the
// transpose is then batch matrix transposes of rows × cols.
func blockSwap(shape []int, perm []int64) (batch, rows, cols int, ok bool) {
	p := 0
	for p < len(perm) && perm[p] == int64(p) {
		p++
	}
	if p == len(perm) {
		return 0, 0, 0, false
	}
	// perm[p:] must be q, q+1, ..., r-1, p, p+1, ..., q-1.
	q := int(perm[p])
	r := len(perm)
	for i := p; i < r; i++ {
		want := q + (i - p)
		if want >= r {
			want = p + (want - r)
		}
		if perm[i] != int64(want) {
			return 0, 0, 0, false
		}
	}
	return numel(shape[:p]), numel(shape[p:q]), numel(shape[q:]), true
}

// transposeBlocks writes each of batch rows × cols matrices of src
// transposed into dst, in square tiles so that both sides stay in cache,
// tiles split between cores.
func transposeBlocks[T float32 | int64](dst, src []T, batch, rows, cols int) {
	const tile = 32
	rt, ct := (rows+tile-1)/tile, (cols+tile-1)/tile
	d32, _ := any(dst).([]float32)
	s32, _ := any(src).([]float32)
	parallelFor(batch*rt, tile*cols, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			b, i0 := t/rt, t%rt*tile
			s, d := src[b*rows*cols:], dst[b*rows*cols:]
			i1 := min(i0+tile, rows)
			for jt := range ct {
				j0 := jt * tile
				j1 := min(j0+tile, cols)
				if d32 != nil {
					o := b * rows * cols
					transposeTileF32(d32[o:], rows, s32[o:], cols, i0, i1, j0, j1)
					continue
				}
				for i := i0; i < i1; i++ {
					for j := j0; j < j1; j++ {
						d[j*rows+i] = s[i*cols+j]
					}
				}
			}
		}
	})
}

// permute writes dst (row-major, shape) from src read with per-axis
// strides, its rows split between cores (vit_b_16's head merge, 12×197
// rows of 64, is one such transpose a layer).
func permute[T float32 | int64](dst, src []T, shape, str []int) {
	r := len(shape)
	if len(dst) == 0 {
		return
	}
	if r == 0 {
		dst[0] = src[0]
		return
	}
	n := shape[r-1]
	parallelFor(len(dst)/n, n, func(lo, hi int) { permuteRows(dst, src, shape, str, lo, hi) })
}

// permuteRows is permute on output rows lo..hi (rows of shape's last axis).
func permuteRows[T float32 | int64](dst, src []T, shape, str []int, lo, hi int) {
	r := len(shape)
	n, s := shape[r-1], str[r-1]
	idx := make([]int, r)
	off := 0
	for k, rest := r-2, lo; k >= 0; k-- {
		idx[k] = rest % shape[k]
		rest /= shape[k]
		off += idx[k] * str[k]
	}
	for o := lo * n; o < hi*n; o += n {
		row := dst[o : o+n]
		if s == 1 {
			copy(row, src[off:off+n])
		} else {
			for i := range row {
				row[i] = src[off+i*s]
			}
		}
		for k := r - 2; k >= 0; k-- {
			idx[k]++
			off += str[k]
			if idx[k] < shape[k] {
				break
			}
			off -= str[k] * shape[k]
			idx[k] = 0
		}
	}
}

func runPad(x *exec, op *canon.Pad) error {
	in := x.in(0)
	r := len(in.shape)
	op, err := x.padParams(op, r)
	if err != nil {
		return err
	}
	value, err := x.scalarParam(2, in, "value")
	if err != nil {
		return err
	}
	if len(op.PadsBegin) != r || len(op.PadsEnd) != r {
		return fmt.Errorf("pads %v/%v: want %d values each, one per axis of %v", op.PadsBegin, op.PadsEnd, r, in.shape)
	}
	maps := make([][]int, r)
	for k := range r {
		d := in.shape[k]
		pb, pe := int(op.PadsBegin[k]), int(op.PadsEnd[k])
		n := d + pb + pe
		if op.PadsBegin[k] > math.MaxInt32 || op.PadsEnd[k] > math.MaxInt32 {
			return fmt.Errorf("pads %d/%d on axis %d of %v are too large (more than 2^31 elements)", op.PadsBegin[k], op.PadsEnd[k], k, in.shape)
		}
		if n < 0 {
			return fmt.Errorf("pads %d/%d on axis %d of %v leave a negative size", pb, pe, k, in.shape)
		}
		if op.Mode != canon.PadConstant && d == 0 && n > 0 {
			return fmt.Errorf("%s padding of an empty axis %d", op.Mode, k)
		}
		if op.Mode == canon.PadReflect && d == 1 && (pb > 0 || pe > 0) {
			return fmt.Errorf("reflect padding needs at least 2 elements on axis %d of %v", k, in.shape)
		}
		m := make([]int, n)
		for o := range m {
			i := o - pb
			if i >= 0 && i < d {
				m[o] = i
				continue
			}
			switch op.Mode {
			case canon.PadConstant:
				m[o] = -1
			case canon.PadEdge:
				m[o] = min(max(i, 0), d-1)
			case canon.PadWrap:
				m[o] = (i%d + d) % d
			case canon.PadReflect:
				period := 2 * (d - 1)
				i %= period
				if i < 0 {
					i += period
				}
				if i >= d {
					i = period - i
				}
				m[o] = i
			}
		}
		maps[k] = m
	}
	switch {
	case value == nil && in.dt == canon.Float64: // float64 carried by its bits
		out := x.newLike(in, mapShape(maps))
		gatherAxes(out.i, in.i, in.shape, maps, int64(math.Float64bits(float64(op.Value))))
		x.set(0, out)
	case value == nil:
		x.set(0, x.gatherT(in, maps, op.Value))
	case in.isFloat():
		x.set(0, x.gatherT(in, maps, value.f[0]))
	default: // an integer fill value stays exact
		out := x.newLike(in, mapShape(maps))
		gatherAxes(out.i, in.i, in.shape, maps, value.i[0])
		x.set(0, out)
	}
	return nil
}

func mapShape(maps [][]int) []int {
	shape := make([]int, len(maps))
	for k, m := range maps {
		shape[k] = len(m)
	}
	return shape
}

func runSlice(x *exec, op *canon.Slice) error {
	in := x.in(0)
	op, err := x.sliceParams(op)
	if err != nil {
		return err
	}
	maps, err := sliceMaps(in.shape, op)
	if err != nil {
		return err
	}
	x.set(0, x.gatherT(in, maps, 0))
	return nil
}

// sliceMaps is, for each axis of an input of shape shape, the input
// indices Slice op keeps along it, in order.
func sliceMaps(shape []int, op *canon.Slice) ([][]int, error) {
	r := len(shape)
	if len(op.Ends) != len(op.Starts) || (op.Axes != nil && len(op.Axes) != len(op.Starts)) || (op.Steps != nil && len(op.Steps) != len(op.Starts)) {
		return nil, fmt.Errorf("starts %v, ends %v, axes %v, steps %v: lengths differ", op.Starts, op.Ends, op.Axes, op.Steps)
	}
	maps := make([][]int, r)
	for k := range r {
		maps[k] = iota0(shape[k])
	}
	done := make([]bool, r)
	for j := range op.Starts {
		axis := int64(j)
		if op.Axes != nil {
			axis = op.Axes[j]
		}
		a, err := normAxis(axis, r)
		if err != nil {
			return nil, err
		}
		if done[a] {
			return nil, fmt.Errorf("axes %v repeat axis %d", op.Axes, a)
		}
		done[a] = true
		step := int64(1)
		if op.Steps != nil {
			step = op.Steps[j]
		}
		if step == 0 {
			return nil, fmt.Errorf("step on axis %d is 0", a)
		}
		d := int64(shape[a])
		start, end := op.Starts[j], op.Ends[j]
		if start < 0 {
			start += d
		}
		if end < 0 {
			end += d
		}
		if step > 0 {
			start = min(max(start, 0), d)
			end = min(max(end, 0), d)
		} else {
			start = min(max(start, -1), d-1)
			end = min(max(end, -1), d-1)
		}
		var m []int
		for i := start; (step > 0 && i < end) || (step < 0 && i > end); i += step {
			m = append(m, int(i))
		}
		if m == nil {
			m = []int{}
		}
		maps[a] = m
	}
	return maps, nil
}

func iota0(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

func runGather(x *exec, op *canon.Gather) error {
	data, ind := x.in(0), x.in(1)
	if ind.isFloat() {
		return fmt.Errorf("indices are %s, want integers", ind.dt)
	}
	axis, err := normAxis(op.Axis, len(data.shape))
	if err != nil {
		return err
	}
	dim := int64(data.shape[axis])
	shape := append(append(append([]int{}, data.shape[:axis]...), ind.shape...), data.shape[axis+1:]...)
	outer, inner := numel(data.shape[:axis]), numel(data.shape[axis+1:])
	idx := make([]int, len(ind.i))
	for j, v := range ind.i {
		if v < -dim || v >= dim {
			return fmt.Errorf("index %d is out of range for axis %d of size %d", v, axis, dim)
		}
		if v < 0 {
			v += dim
		}
		idx[j] = int(v)
	}
	out := x.newLike(data, shape)
	for o := 0; o < outer; o++ {
		for j, v := range idx {
			src := (o*int(dim) + v) * inner
			dst := (o*len(idx) + j) * inner
			if data.isFloat() {
				copy(out.f[dst:dst+inner], data.f[src:src+inner])
			} else {
				copy(out.i[dst:dst+inner], data.i[src:src+inner])
			}
		}
	}
	x.set(0, out)
	return nil
}

func runShape(x *exec, op *canon.ShapeOf) error {
	in := x.in(0)
	r := int64(len(in.shape))
	clamp := func(v int64) int64 {
		if v < 0 {
			v += r
		}
		return min(max(v, 0), r)
	}
	start, end := clamp(op.Start), clamp(op.End)
	var dims []int64
	for i := start; i < end; i++ {
		dims = append(dims, int64(in.shape[i]))
	}
	out := x.newI(canon.Int64, []int{len(dims)})
	copy(out.i, dims)
	x.set(0, out)
	return nil
}
