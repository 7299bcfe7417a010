package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Diagonals and the scatter forms .pt2 graphs write views back with. The
// two axes of a diagonal are moved last and flattened, so that the
// diagonal is a Gather (or a ScatterElements) of constant positions along
// one axis.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.diag":             entry(opDiag, "Transpose", "Reshape", "Gather", "Pad"),
		"torch.diagonal":         entry(opDiagonal, "Transpose", "Reshape", "Gather"),
		"torch.diagonal_copy":    entry(opDiagonal, "Transpose", "Reshape", "Gather"),
		"torch.diag_embed":       entry(opDiagEmbed, "Transpose", "Reshape", "Gather", "Pad"),
		"torch.diagonal_scatter": entry(opDiagonalScatter, "Transpose", "Reshape", "Expand", "ScatterElements"),
		"torch.select_scatter":   entry(opSelectScatter, "Unsqueeze", "Expand", "ScatterElements"),
		"torch.slice_scatter":    entry(opSliceScatter, "Expand", "ScatterElements"),
	})
}

// diagPositions are the flat (row-major) positions of the diagonal of
// offset k in an n1×n2 plane, one per entry.
func diagPositions(n1, n2, k int64) []int64 {
	r0, c0 := max(0, -k), max(0, k)
	n := max(0, min(n1-r0, n2-c0))
	pos := make([]int64, n)
	for i := range pos {
		pos[i] = (int64(i)+r0)*n2 + int64(i) + c0
	}
	return pos
}

// planeLast moves axes d1 and d2 of a rank-r tensor to the end (d1 second
// to last), returning the permutation.
func planeLast(r int, d1, d2 int64) []int64 {
	var perm []int64
	for i := range int64(r) {
		if i != d1 && i != d2 {
			perm = append(perm, i)
		}
	}
	return append(perm, d1, d2)
}

// diagonalOf is torch.diagonal(x, k, d1, d2): the diagonal as the last axis.
func diagonalOf(c *opCall, x *tensorVal, k int64, d1, d2 int64) (value, error) {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	r := len(shape)
	if d1, err = c.axis(d1, r); err != nil {
		return nil, err
	}
	if d2, err = c.axis(d2, r); err != nil {
		return nil, err
	}
	if d1 == d2 {
		return nil, c.errf("dim1 and dim2 are both %d", d1)
	}
	perm := planeLast(r, d1, d2)
	t, err := transpose(c, x, perm)
	if err != nil {
		return nil, err
	}
	var flat []int64
	for _, p := range perm[:r-2] {
		flat = append(flat, shape[p])
	}
	flat = append(flat, shape[d1]*shape[d2])
	if t, err = reshape(c, t, flat...); err != nil {
		return nil, err
	}
	pos := diagPositions(shape[d1], shape[d2], k)
	return c.b().emit1(c.scope, &canon.Gather{Axis: int64(r - 2)}, t, constI64([]int64{int64(len(pos))}, pos...))
}

func opDiagonal(c *opCall) (value, error) {
	x, err := c.bindInput("input", "offset=0", "dim1=0", "dim2=1")
	if err != nil {
		return nil, err
	}
	k, err := c.int(1)
	if err != nil {
		return nil, err
	}
	d1, err := c.int(2)
	if err != nil {
		return nil, err
	}
	d2, err := c.int(3)
	if err != nil {
		return nil, err
	}
	return diagonalOf(c, x, k, d1, d2)
}

// diagEmbed puts the last axis of x (length n) on the diagonal k of a new
// (n+|k|)×(n+|k|) plane at axes d1, d2 of the result, zeros elsewhere: a
// Gather from x with one zero appended, which off-diagonal positions read.
func diagEmbed(c *opCall, x *tensorVal, k, d1, d2 int64) (value, error) {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	r := len(shape)
	if r == 0 {
		return nil, c.errf("the input must have at least one dimension")
	}
	if d1, err = c.axis(d1, r+1); err != nil {
		return nil, err
	}
	if d2, err = c.axis(d2, r+1); err != nil {
		return nil, err
	}
	if d1 == d2 {
		return nil, c.errf("dim1 and dim2 are both %d", d1)
	}
	n := shape[r-1]
	m := n + max(k, -k)
	if m*m > maxRepeatedLength {
		return nil, c.errf("the diagonal matrix would have %d entries, more than %d", m*m, maxRepeatedLength)
	}
	begin, end := make([]int64, r), make([]int64, r)
	end[r-1] = 1
	padded, err := c.b().emit1(c.scope, &canon.Pad{Mode: canon.PadConstant, PadsBegin: begin, PadsEnd: end}, x)
	if err != nil {
		return nil, err
	}
	idx := make([]int64, m*m)
	for i := range idx {
		idx[i] = n // the appended zero
	}
	for i, p := range diagPositions(m, m, k) {
		idx[p] = int64(i)
	}
	g, err := c.b().emit1(c.scope, &canon.Gather{Axis: int64(r - 1)}, padded, constI64([]int64{m, m}, idx...))
	if err != nil {
		return nil, err
	}
	// g is (batch..., m, m); the two plane axes go to d1 and d2.
	perm := make([]int64, r+1)
	next := int64(0)
	for i := range perm {
		switch int64(i) {
		case d1:
			perm[i] = int64(r - 1)
		case d2:
			perm[i] = int64(r)
		default:
			perm[i] = next
			next++
		}
	}
	return transpose(c, g, perm)
}

func opDiagEmbed(c *opCall) (value, error) {
	x, err := c.bindInput("input", "offset=0", "dim1=-2", "dim2=-1")
	if err != nil {
		return nil, err
	}
	k, err := c.int(1)
	if err != nil {
		return nil, err
	}
	d1, err := c.int(2)
	if err != nil {
		return nil, err
	}
	d2, err := c.int(3)
	if err != nil {
		return nil, err
	}
	return diagEmbed(c, x, k, d1, d2)
}

// opDiag: a vector becomes a matrix with it on diagonal k; a matrix gives
// its diagonal k.
func opDiag(c *opCall) (value, error) {
	x, err := c.bindInput("input", "diagonal=0")
	if err != nil {
		return nil, err
	}
	k, err := c.int(1)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	switch r {
	case 1:
		return diagEmbed(c, x, k, 0, 1)
	case 2:
		return diagonalOf(c, x, k, 0, 1)
	}
	return nil, c.errf("the input must be 1-D or 2-D, got rank %d", r)
}

// scatterAlong writes src into x at constant positions pos along axis d
// (src has x's shape except len(pos) on d): a ScatterElements whose index
// is pos broadcast to src's shape.
func scatterAlong(c *opCall, x, src *tensorVal, d int64, pos []int64) (value, error) {
	srcShape, err := c.shapeOf(src, "the source")
	if err != nil {
		return nil, err
	}
	if int(d) >= len(srcShape) || srcShape[d] != int64(len(pos)) {
		return nil, c.errf("the source has shape %v, want %d entries on dimension %d", srcShape, len(pos), d)
	}
	ishape := make([]int64, len(srcShape))
	for i := range ishape {
		ishape[i] = 1
	}
	ishape[d] = int64(len(pos))
	idx, err := c.b().emit1(c.scope, &canon.Expand{Shape: srcShape}, constI64(ishape, pos...))
	if err != nil {
		return nil, err
	}
	if src, err = castTo(c, src, c.b().info(x).DType); err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.ScatterElements{Axis: d}, x, idx, src)
}

// opDiagonalScatter: x with its diagonal (offset, dim1, dim2) replaced by
// src, written on the flattened plane.
func opDiagonalScatter(c *opCall) (value, error) {
	x, err := c.bindInput("input", "src", "offset=0", "dim1=0", "dim2=1")
	if err != nil {
		return nil, err
	}
	src, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	k, err := c.int(2)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	r := len(shape)
	d1, err := axisOf(c, 3, r)
	if err != nil {
		return nil, err
	}
	d2, err := axisOf(c, 4, r)
	if err != nil {
		return nil, err
	}
	if d1 == d2 {
		return nil, c.errf("dim1 and dim2 are both %d", d1)
	}
	perm := planeLast(r, d1, d2)
	t, err := transpose(c, x, perm)
	if err != nil {
		return nil, err
	}
	var flat, moved []int64
	for _, p := range perm {
		moved = append(moved, shape[p])
	}
	flat = append(append(flat, moved[:r-2]...), shape[d1]*shape[d2])
	if t, err = reshape(c, t, flat...); err != nil {
		return nil, err
	}
	v, err := scatterAlong(c, t, src, int64(r-2), diagPositions(shape[d1], shape[d2], k))
	if err != nil {
		return nil, err
	}
	back, err := reshape(c, v.(*tensorVal), moved...)
	if err != nil {
		return nil, err
	}
	return transpose(c, back, inversePerm(perm))
}

// opSelectScatter: x with x.select(dim, index) replaced by src.
func opSelectScatter(c *opCall) (value, error) {
	x, err := c.bindInput("input", "src", "dim", "index")
	if err != nil {
		return nil, err
	}
	src, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d, err := axisOf(c, 2, len(shape))
	if err != nil {
		return nil, err
	}
	i, err := c.int(3)
	if err != nil {
		return nil, err
	}
	if i < -shape[d] || i >= shape[d] {
		return nil, c.errf("index %d is out of range for dimension %d of size %d", i, d, shape[d])
	}
	if i < 0 {
		i += shape[d]
	}
	if src, err = unsqueeze(c, src, d); err != nil {
		return nil, err
	}
	return scatterAlong(c, x, src, d, []int64{i})
}

// opSliceScatter: x with x[start:end:step] along dim replaced by src.
func opSliceScatter(c *opCall) (value, error) {
	x, err := c.bindInput("input", "src", "dim=0", "start=None", "end=None", "step=1")
	if err != nil {
		return nil, err
	}
	src, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d, err := axisOf(c, 2, len(shape))
	if err != nil {
		return nil, err
	}
	n := shape[d]
	start, end := int64(0), n
	if !c.isNone(3) {
		if start, err = c.int(3); err != nil {
			return nil, err
		}
	}
	if !c.isNone(4) {
		if end, err = c.int(4); err != nil {
			return nil, err
		}
	}
	step, err := c.int(5)
	if err != nil {
		return nil, err
	}
	if step <= 0 {
		return nil, c.errf("step must be positive, got %d", step)
	}
	start, end = clampSlice(start, n), clampSlice(end, n)
	var pos []int64
	for i := start; i < end; i += step {
		pos = append(pos, i)
	}
	return scatterAlong(c, x, src, d, pos)
}
