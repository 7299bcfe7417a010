package canon

import "encoding/binary"

// maxConstElems bounds the integer tensors that inference computes: shape
// arithmetic needs a handful of elements; anything bigger is real data that
// belongs to a constant-folding pass, not to type inference.
const maxConstElems = 64

// smallInt reports whether t is a well-formed integer tensor small enough to
// compute with during inference.
func smallInt(t *Tensor) bool {
	if t == nil || !t.DType.IsInt() {
		return false
	}
	n := NumElements(t.Shape)
	return n >= 0 && n <= maxConstElems && t.CheckData() == nil
}

// constOf returns v's content when it is a small integer tensor whose shape
// agrees with v's type, so that index arithmetic on it cannot go astray.
func constOf(v ValueInfo) *Tensor {
	t := v.Const
	if !smallInt(t) || !v.RankKnown || len(t.Shape) != len(v.Shape) {
		return nil
	}
	for i, d := range v.Shape {
		if d.Size != t.Shape[i] {
			return nil
		}
	}
	return t
}

// makeIntConst encodes v as a tensor of integer dtype dt; values that do not
// fit wrap, as the integer ops do at run time.
func makeIntConst(name string, dt DType, shape []int64, v []int64) *Tensor {
	sz := dt.Size()
	b := make([]byte, sz*len(v))
	for i, x := range v {
		switch sz {
		case 1:
			b[i] = byte(x)
		case 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
		case 4:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		case 8:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		}
	}
	if shape == nil {
		shape = []int64{}
	}
	return &Tensor{Name: name, DType: dt, Shape: shape, Data: b}
}

// staticSmall returns the concrete shape when it is known and holds at most
// maxConstElems elements.
func staticSmall(dims []Dim) ([]int64, bool) {
	s, ok := ValueInfo{Shape: dims, RankKnown: true}.StaticShape()
	if !ok {
		return nil, false
	}
	n := NumElements(s)
	return s, n >= 0 && n <= maxConstElems
}

// reshapeConst carries x's constant content over to a new shape with the
// same elements (Reshape, Flatten, Squeeze, Unsqueeze).
func (c *InferCtx) reshapeConst(x ValueInfo, out []Dim) *Tensor {
	t := constOf(x)
	if t == nil {
		return nil
	}
	s, ok := staticSmall(out)
	if !ok || NumElements(s) != t.NumElements() {
		return nil
	}
	return &Tensor{Name: c.outName(0), DType: t.DType, Shape: s, Data: t.Data}
}

// strides returns row-major element strides for shape s.
func strides(s []int64) []int64 {
	st := make([]int64, len(s))
	acc := int64(1)
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// broadcastIndex maps flat index i of the output shape out to the flat index
// of an input of shape in that broadcasts to it.
func broadcastIndex(i int64, out, in []int64) int64 {
	ost, ist := strides(out), strides(in)
	off := len(out) - len(in)
	var j int64
	for ax := range out {
		coord := (i / ost[ax]) % out[ax]
		if ax >= off && in[ax-off] != 1 {
			j += coord * ist[ax-off]
		}
	}
	return j
}

func (c *InferCtx) binaryConst(fn BinaryFn, a, b *Tensor, out []Dim) (*Tensor, error) {
	s, ok := staticSmall(out)
	if !ok {
		return nil, nil
	}
	av, err1 := a.Int64s()
	bv, err2 := b.Int64s()
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	n := NumElements(s)
	res := make([]int64, n)
	for i := range res {
		x, y := av[broadcastIndex(int64(i), s, a.Shape)], bv[broadcastIndex(int64(i), s, b.Shape)]
		switch fn {
		case Add:
			res[i] = x + y
		case Sub:
			res[i] = x - y
		case Mul:
			res[i] = x * y
		case Div:
			if y == 0 {
				return nil, c.errf("integer division by zero: B %q holds 0", c.n.Inputs[1])
			}
			if y == -1 {
				res[i] = -x // avoids the MinInt64 / -1 trap
			} else {
				res[i] = x / y // truncates toward zero, as ONNX Runtime does
			}
		}
	}
	return makeIntConst(c.outName(0), a.DType, s, res), nil
}

func (c *InferCtx) concatConst(axis int, out []Dim) *Tensor {
	s, ok := staticSmall(out)
	if !ok {
		return nil
	}
	dt := Undefined
	vals := make([][]int64, len(c.in))
	for i, v := range c.in {
		t := constOf(v)
		if t == nil || (dt != Undefined && t.DType != dt) || len(t.Shape) != len(s) {
			return nil
		}
		dt = t.DType
		x, err := t.Int64s()
		if err != nil {
			return nil
		}
		vals[i] = x
	}
	outer := NumElements(s[:axis])
	inner := NumElements(s[axis+1:])
	if NumElements(s) == 0 {
		outer = 0 // empty, though a leading axis may be huge: skip the loop
	}
	res := make([]int64, 0, NumElements(s))
	for o := int64(0); o < outer; o++ {
		for i, v := range c.in {
			chunk := v.Const.Shape[axis] * inner
			res = append(res, vals[i][o*chunk:(o+1)*chunk]...)
		}
	}
	if int64(len(res)) != NumElements(s) {
		return nil
	}
	return makeIntConst(c.outName(0), dt, s, res)
}

func (c *InferCtx) sliceConst(op *Slice, x ValueInfo, axes []int, steps []int64, out []Dim) *Tensor {
	if constOf(x) == nil {
		return nil
	}
	s, ok := staticSmall(out)
	if !ok {
		return nil
	}
	in := x.Const.Shape
	vals, err := x.Const.Int64s()
	if err != nil || len(in) != len(s) {
		return nil
	}
	first := make([]int64, len(in))
	step := make([]int64, len(in))
	for i := range step {
		step[i] = 1
	}
	for i, ax := range axes {
		first[ax], _ = sliceRange(in[ax], op.Starts[i], op.Ends[i], steps[i])
		step[ax] = steps[i]
	}
	ost, ist := strides(s), strides(in)
	res := make([]int64, NumElements(s))
	for i := range res {
		var j int64
		for ax := range s {
			coord := (int64(i) / ost[ax]) % s[ax]
			j += (first[ax] + coord*step[ax]) * ist[ax]
		}
		res[i] = vals[j]
	}
	return makeIntConst(c.outName(0), x.Const.DType, s, res)
}

func (c *InferCtx) gatherConst(data ValueInfo, axis int, ids []int64, out []Dim) *Tensor {
	if constOf(data) == nil {
		return nil
	}
	s, ok := staticSmall(out)
	if !ok {
		return nil
	}
	ds := data.Const.Shape
	vals, err := data.Const.Int64s()
	if err != nil || len(ds) != len(data.Shape) {
		return nil
	}
	outer, n, inner := NumElements(ds[:axis]), ds[axis], NumElements(ds[axis+1:])
	if NumElements(s) == 0 {
		outer = 0 // empty, though a leading axis may be huge: skip the loop
	}
	res := make([]int64, 0, NumElements(s))
	for o := int64(0); o < outer; o++ {
		for _, id := range ids {
			if id < 0 {
				id += n
			}
			if id < 0 || id >= n {
				return nil
			}
			base := (o*n + id) * inner
			res = append(res, vals[base:base+inner]...)
		}
	}
	if int64(len(res)) != NumElements(s) {
		return nil
	}
	return makeIntConst(c.outName(0), data.Const.DType, s, res)
}
