package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Products and differences of tensors: mv, dot, outer, the add*
// products, cross, kron and diff, each as MatMul or an exact expansion.

var linalgKinds = []string{"MatMul", "Mul", "Add", "Sub", "ReduceSum", "Unsqueeze", "Reshape", "Gather", "Slice", "Concat", "Xor"}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.mv":                  entry(opProduct("mv", 2, 1), "MatMul"),
		"torch.dot":                 entry(opProduct("dot", 1, 1), "MatMul"),
		"torch.vdot":                entry(opProduct("vdot", 1, 1), "MatMul"),
		"torch.inner":               entry(opInner, "MatMul", "Mul", "Unsqueeze", "Transpose"),
		"torch.outer":               entry(opOuter, "Mul", "Unsqueeze"),
		"torch.ger":                 entry(opOuter, "Mul", "Unsqueeze"),
		"torch.addmv":               entry(opAddProduct("addmv"), linalgKinds...),
		"torch.addbmm":              entry(opAddProduct("addbmm"), linalgKinds...),
		"torch.addr":                entry(opAddProduct("addr"), linalgKinds...),
		"torch.addmv_":              entry(inPlace(opAddProduct("addmv")), linalgKinds...),
		"torch.addbmm_":             entry(inPlace(opAddProduct("addbmm")), linalgKinds...),
		"torch.addr_":               entry(inPlace(opAddProduct("addr")), linalgKinds...),
		"torch.addmm_":              entry(inPlace(opAddmm), "MatMul", "Mul", "Add"),
		"torch.baddbmm_":            entry(inPlace(opBaddbmm), "MatMul", "Mul", "Add"),
		"torch.cross":               entry(opCross(false), linalgKinds...),
		"torch.linalg_cross":        entry(opCross(true), linalgKinds...),
		"torch.kron":                entry(opKron, linalgKinds...),
		"torch.diff":                entry(opDiff, linalgKinds...),
		"torch.tensordot":           entry(opTensordot, "Transpose", "Reshape", "MatMul"),
		"torch.matrix_power":        entry(opMatrixPower, "MatMul", "Expand"),
		"torch.linalg_matrix_power": entry(opMatrixPower, "MatMul", "Expand"),
		"torch.linalg_multi_dot":    entry(opMultiDot, "MatMul"),
		"torch.chain_matmul":        entry(opMultiDot, "MatMul"),
	})
}

// opProduct maps mv and dot: MatMul of operands of the given ranks.
func opProduct(name string, rankA, rankB int) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("input", "other"); err != nil {
			return nil, err
		}
		a, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		b, err := c.tensor(1)
		if err != nil {
			return nil, err
		}
		for i, want := range []int{rankA, rankB} {
			r, err := c.rankOf([]*tensorVal{a, b}[i], c.params[i])
			if err != nil {
				return nil, err
			}
			if r != want {
				return nil, c.errf("%s: operand %d has rank %d, want %d", name, i+1, r, want)
			}
		}
		if _, err := sameDTypes(c, a, b); err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.MatMul{}, a, b)
	}
}

// opOuter: outer(a, b)[i, j] = a[i]·b[j].
func opOuter(c *opCall) (value, error) {
	if err := c.bind("input", "vec2"); err != nil {
		return nil, err
	}
	a, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	b, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if a, b, err = promoteTensors(c, a, b); err != nil {
		return nil, err
	}
	e := newExpansion(c)
	return e.result(outerOf(e, a, b))
}

func outerOf(e *expansion, a, b *tensorVal) *tensorVal {
	return e.mul(e.op(&canon.Unsqueeze{Axes: []int64{1}}, a), e.op(&canon.Unsqueeze{Axes: []int64{0}}, b))
}

// opInner: inner(a, b) contracts the last axes: a @ bᵀ over b's last two
// axes, or a product when either is a scalar.
func opInner(c *opCall) (value, error) {
	if err := c.bind("input", "other"); err != nil {
		return nil, err
	}
	a, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	b, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	ra, err := c.rankOf(a, "input")
	if err != nil {
		return nil, err
	}
	rb, err := c.rankOf(b, "other")
	if err != nil {
		return nil, err
	}
	e := newExpansion(c)
	switch {
	case ra == 0 || rb == 0:
		return e.result(e.mul(a, b))
	case ra == 1 && rb == 1:
		return e.result(e.op(&canon.MatMul{}, a, b))
	case rb == 1:
		return e.result(e.op(&canon.MatMul{}, a, b))
	case rb == 2:
		return e.result(e.op(&canon.MatMul{}, a, e.op(&canon.Transpose{Perm: []int64{1, 0}}, b)))
	}
	return nil, c.errf("inner with a rank-%d second operand is not supported (ranks up to 2)", rb)
}

// opAddProduct maps beta·input + alpha·P for P = mat@vec (addmv), the
// sum over the batch of batch1@batch2 (addbmm) or outer(vec1, vec2)
// (addr). With beta 0 the input is not read (its NaNs do not pass), as in
// torch.
func opAddProduct(name string) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("input", "a", "b", "beta=1", "alpha=1"); err != nil {
			return nil, err
		}
		var ts [3]*tensorVal
		for i := range ts {
			t, err := c.tensor(i)
			if err != nil {
				return nil, err
			}
			ts[i] = t
		}
		beta, err := c.float(3)
		if err != nil {
			return nil, err
		}
		alpha, err := c.float(4)
		if err != nil {
			return nil, err
		}
		e := newExpansion(c)
		var p *tensorVal
		switch name {
		case "addmv":
			p = e.op(&canon.MatMul{}, ts[1], ts[2])
		case "addbmm":
			if err := needRank3(c, ts[1], "batch1"); err != nil {
				return nil, err
			}
			if err := needRank3(c, ts[2], "batch2"); err != nil {
				return nil, err
			}
			p = e.reduce(canon.ReduceSum, e.op(&canon.MatMul{}, ts[1], ts[2]), []int64{0}, false)
		case "addr":
			p = outerOf(e, ts[1], ts[2])
		}
		if alpha != 1 {
			p = e.mul(p, e.num(alpha, p))
		}
		if beta == 0 {
			// The product has the result's shape: input only broadcasts
			// to it.
			return e.result(p)
		}
		in := ts[0]
		if beta != 1 {
			in = e.mul(in, e.num(beta, in))
		}
		return e.result(e.add(in, p))
	}
}

// opCross: the cross product along dim (linalg_cross: -1; cross without
// dim: the first axis of size 3), a·b rotated: c = a[1,2,0]·b[2,0,1] -
// a[2,0,1]·b[1,2,0], as torch computes each component.
func opCross(linalg bool) opHandler {
	return func(c *opCall) (value, error) {
		dflt := "dim=None"
		if linalg {
			dflt = "dim=-1"
		}
		if err := c.bind("input", "other", dflt); err != nil {
			return nil, err
		}
		a, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		b, err := c.tensor(1)
		if err != nil {
			return nil, err
		}
		if a, b, err = promoteTensors(c, a, b); err != nil {
			return nil, err
		}
		sa, err := c.shapeOf(a, "input")
		if err != nil {
			return nil, err
		}
		sb, err := c.shapeOf(b, "other")
		if err != nil {
			return nil, err
		}
		rank := max(len(sa), len(sb))
		var d int64 = -1
		if c.isNone(2) {
			for i, n := range sa {
				if n == 3 && (len(sb) != len(sa) || sb[i] == 3) {
					d = int64(i)
					break
				}
			}
			if d < 0 {
				return nil, c.errf("no dimension of size 3 to take the cross product along")
			}
		} else {
			k, err := c.int(2)
			if err != nil {
				return nil, err
			}
			if d, err = c.axis(k, rank); err != nil {
				return nil, err
			}
		}
		for _, s := range [][]int64{sa, sb} {
			at := d - int64(rank-len(s))
			if at < 0 || s[at] != 3 {
				return nil, c.errf("both operands need size 3 at dim %d; they are %v and %v", d, sa, sb)
			}
		}
		e := newExpansion(c)
		pick := func(t *tensorVal, s []int64, idx []int64) *tensorVal {
			at := d - int64(rank-len(s))
			return e.op(&canon.Gather{Axis: at}, t, &tensorVal{konst: canon.NewInt64Tensor("", []int64{3}, idx)})
		}
		next, prev := []int64{1, 2, 0}, []int64{2, 0, 1}
		return e.result(e.sub(e.mul(pick(a, sa, next), pick(b, sb, prev)), e.mul(pick(a, sa, prev), pick(b, sb, next))))
	}
}

// opKron: kron(a, b) is a's entries times b as blocks: a reshaped to
// (a0,1,a1,1,...) times b to (1,b0,1,b1,...), then merged pairwise.
func opKron(c *opCall) (value, error) {
	if err := c.bind("input", "other"); err != nil {
		return nil, err
	}
	a, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	b, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if a, b, err = promoteTensors(c, a, b); err != nil {
		return nil, err
	}
	sa, err := c.shapeOf(a, "input")
	if err != nil {
		return nil, err
	}
	sb, err := c.shapeOf(b, "other")
	if err != nil {
		return nil, err
	}
	rank := max(len(sa), len(sb))
	pad := func(s []int64) []int64 {
		out := make([]int64, rank)
		for i := range out {
			out[i] = 1
		}
		copy(out[rank-len(s):], s)
		return out
	}
	pa, pb := pad(sa), pad(sb)
	ia, ib, merged := make([]int64, 2*rank), make([]int64, 2*rank), make([]int64, rank)
	for i := 0; i < rank; i++ {
		ia[2*i], ia[2*i+1] = pa[i], 1
		ib[2*i], ib[2*i+1] = 1, pb[i]
		merged[i] = pa[i] * pb[i]
	}
	e := newExpansion(c)
	p := e.mul(e.op(&canon.Reshape{Shape: ia, AllowZero: true}, a), e.op(&canon.Reshape{Shape: ib, AllowZero: true}, b))
	return e.result(e.op(&canon.Reshape{Shape: merged, AllowZero: true}, p))
}

// opDiff: diff(x, n=1, dim=-1, prepend=None, append=None) joins prepend,
// x and append along dim and takes n forward differences (x[1:] - x[:-1];
// for bools, x[1:] xor x[:-1]).
func opDiff(c *opCall) (value, error) {
	x, err := c.bindInput("input", "n=1", "dim=-1", "prepend=None", "append=None")
	if err != nil {
		return nil, err
	}
	n, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, c.errf("order must be non-negative, got %d", n)
	}
	d, err := indexingDim(c, 2, x)
	if err != nil {
		return nil, err
	}
	parts := []*tensorVal{}
	for i, at := range []int{3, 0, 4} {
		if i != 1 && c.isNone(at) {
			continue
		}
		t, err := c.tensor(at)
		if err != nil {
			return nil, err
		}
		parts = append(parts, t)
	}
	e := newExpansion(c)
	y := x
	if len(parts) > 1 {
		y = e.op(&canon.Concat{Axis: d}, parts...)
	}
	isBool := e.dtype(y) == canon.Bool
	const end = int64(math.MaxInt64)
	for k := int64(0); k < n; k++ {
		later := e.op(&canon.Slice{Starts: []int64{1}, Ends: []int64{end}, Axes: []int64{d}}, y)
		earlier := e.op(&canon.Slice{Starts: []int64{0}, Ends: []int64{-1}, Axes: []int64{d}}, y)
		if isBool {
			y = e.op(&canon.Logic{Fn: canon.LogicXor}, later, earlier)
		} else {
			y = e.sub(later, earlier)
		}
	}
	return e.result(y)
}

// opTensordot contracts dims_a of a with dims_b of b: a's free axes then
// its contracted ones, flattened to a matrix, times b's contracted then
// free ones, reshaped to the free sizes.
func opTensordot(c *opCall) (value, error) {
	if err := c.bind("input", "other", "dims_self", "dims_other"); err != nil {
		return nil, err
	}
	var ts [2]*tensorVal
	var shapes [2][]int64
	var dims [2][]int64
	for i := range ts {
		t, err := c.tensor(i)
		if err != nil {
			return nil, err
		}
		if shapes[i], err = c.shapeOf(t, c.params[i]); err != nil {
			return nil, err
		}
		ds, err := c.ints(2+i, 0)
		if err != nil {
			return nil, err
		}
		for k := range ds {
			if ds[k], err = c.axis(ds[k], len(shapes[i])); err != nil {
				return nil, err
			}
		}
		ts[i], dims[i] = t, ds
	}
	if len(dims[0]) != len(dims[1]) {
		return nil, c.errf("contracts %d dims of input and %d of other", len(dims[0]), len(dims[1]))
	}
	a, b, err := promoteTensors(c, ts[0], ts[1])
	if err != nil {
		return nil, err
	}
	free := func(shape, contracted []int64) []int64 {
		var out []int64
		for i := range shape {
			if !containsInt64(contracted, int64(i)) {
				out = append(out, int64(i))
			}
		}
		return out
	}
	size := func(shape, axes []int64) int64 {
		n := int64(1)
		for _, a := range axes {
			n *= shape[a]
		}
		return n
	}
	k := size(shapes[0], dims[0])
	for i := range dims[0] {
		if shapes[0][dims[0][i]] != shapes[1][dims[1][i]] {
			return nil, c.errf("contracted dims have sizes %d and %d", shapes[0][dims[0][i]], shapes[1][dims[1][i]])
		}
	}
	freeA, freeB := free(shapes[0], dims[0]), free(shapes[1], dims[1])
	e := newExpansion(c)
	am := e.op(&canon.Reshape{Shape: []int64{size(shapes[0], freeA), k}, AllowZero: true},
		e.op(&canon.Transpose{Perm: append(append([]int64{}, freeA...), dims[0]...)}, a))
	bm := e.op(&canon.Reshape{Shape: []int64{k, size(shapes[1], freeB)}, AllowZero: true},
		e.op(&canon.Transpose{Perm: append(append([]int64{}, dims[1]...), freeB...)}, b))
	out := []int64{}
	for _, ax := range freeA {
		out = append(out, shapes[0][ax])
	}
	for _, ax := range freeB {
		out = append(out, shapes[1][ax])
	}
	return e.result(e.op(&canon.Reshape{Shape: out, AllowZero: true}, e.op(&canon.MatMul{}, am, bm)))
}

func containsInt64(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// opMatrixPower: x^n by torch's own sequence of products (n 1 to 3
// directly, then binary powers), so the rounding is torch's; n = 0 is
// the identity in x's shape. Negative powers need an inverse (refused).
func opMatrixPower(c *opCall) (value, error) {
	x, err := c.bindInput("input", "n")
	if err != nil {
		return nil, err
	}
	n, err := c.int(1)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) < 2 || shape[len(shape)-1] != shape[len(shape)-2] {
		return nil, c.errf("needs square matrices, got shape %v", shape)
	}
	e := newExpansion(c)
	mm := func(a, b *tensorVal) *tensorVal { return e.op(&canon.MatMul{}, a, b) }
	switch {
	case n < 0:
		return nil, c.errf("a negative power needs the matrix inverse, which no canonical operator computes")
	case n == 0:
		k := shape[len(shape)-1]
		eye := &canon.Tensor{DType: e.dtype(x), Shape: []int64{k, k}}
		one, zero := e.num(1, x), e.num(0, x)
		if e.err != nil {
			return nil, e.err
		}
		for i := int64(0); i < k*k; i++ {
			v := zero
			if i%(k+1) == 0 {
				v = one
			}
			eye.Data = append(eye.Data, v.konst.Data...)
		}
		return e.result(e.op(&canon.Expand{Shape: shape}, &tensorVal{konst: eye}))
	case n == 1:
		return x, nil
	case n == 2:
		return e.result(mm(x, x))
	case n == 3:
		return e.result(mm(mm(x, x), x))
	}
	var z, result *tensorVal
	for n > 0 {
		bit := n % 2
		n /= 2
		if z == nil {
			z = x
		} else {
			z = mm(z, z)
		}
		if bit == 1 {
			if result == nil {
				result = z
			} else {
				result = mm(result, z)
			}
		}
	}
	return e.result(result)
}

// opMultiDot multiplies a list of matrices (the first and last may be
// vectors) left to right; torch picks the cheapest order, which changes
// only the rounding.
func opMultiDot(c *opCall) (value, error) {
	if err := c.bind("tensors"); err != nil {
		return nil, err
	}
	l, ok := c.bound[0].(*listVal)
	if !ok || len(l.items) == 0 {
		return nil, c.errf("needs a non-empty list of tensors")
	}
	e := newExpansion(c)
	var acc *tensorVal
	for i, it := range l.items {
		t, ok := it.(*tensorVal)
		if !ok {
			return nil, c.errf("element %d is a %s, not a Tensor", i, typeName(it))
		}
		if acc == nil {
			acc = t
			continue
		}
		acc = e.op(&canon.MatMul{}, acc, t)
	}
	return e.result(acc)
}
