package torchscript

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// scalar is a number known at import: a Python int/float or a one-element
// constant tensor (NumToTensor of a static size).
type scalar struct {
	f        float64
	isInt    bool
	isTensor bool
}

func scalarOf(v value) (scalar, bool) {
	switch x := v.(type) {
	case int64:
		return scalar{f: float64(x), isInt: true}, true
	case float64:
		return scalar{f: x}, true
	case bool:
		if x {
			return scalar{f: 1, isInt: true}, true
		}
		return scalar{isInt: true}, true
	case *tensorVal:
		if x.konst != nil && x.konst.NumElements() == 1 {
			if n, ok := scalarInt64(x.konst); ok {
				return scalar{f: float64(n), isInt: true, isTensor: true}, true
			}
			if fs, err := x.konst.Float64s(); err == nil && len(fs) == 1 {
				return scalar{f: fs[0], isTensor: true}, true
			}
		}
	}
	return scalar{}, false
}

func (s scalar) value() value {
	if s.isTensor {
		if s.isInt {
			return &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{int64(s.f)})}
		}
		return &tensorVal{konst: canon.NewFloat32Tensor("", []int64{}, []float32{float32(s.f)})}
	}
	if s.isInt {
		return int64(s.f)
	}
	return s.f
}

// foldScalar computes op on two numbers known at import.
func foldScalar(fn string, a, b scalar) (value, error) {
	r := scalar{isInt: a.isInt && b.isInt, isTensor: a.isTensor || b.isTensor}
	switch fn {
	case "add":
		r.f = a.f + b.f
	case "sub":
		r.f = a.f - b.f
	case "mul":
		r.f = a.f * b.f
	case "div":
		if b.f == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		r.f = a.f / b.f
		r.isInt = false
	case "floor_divide":
		if b.f == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		r.f = math.Floor(a.f / b.f)
	default:
		return nil, fmt.Errorf("cannot fold %s", fn)
	}
	return r.value(), nil
}

// binaryOp maps add/sub/mul/div (and their in-place forms): tensors become
// a Binary node, numbers known at import are computed.
func binaryOp(fn canon.BinaryFn, fold string) opHandler {
	return binaryOpOrder(fn, fold, false)
}

// binaryOpOrder is binaryOp; reverse is for rsub(input, other, alpha),
// which computes other - alpha*input.
func binaryOpOrder(fn canon.BinaryFn, fold string, reverse bool) opHandler {
	return func(c *opCall) (value, error) {
		schema := []string{"input", "other"}
		switch fn {
		case canon.Add, canon.Sub:
			schema = append(schema, "alpha=1")
		case canon.Div:
			schema = append(schema, "rounding_mode=None")
		}
		if err := c.bind(schema...); err != nil {
			return nil, err
		}
		mode := ""
		if fn == canon.Div && !c.isNone(2) {
			mode, _ = c.bound[2].(string)
			if mode != "trunc" && mode != "floor" {
				return nil, c.errf("rounding_mode %v is not supported (trunc or floor)", c.bound[2])
			}
		}
		left, right := c.bound[0], c.bound[1]
		if reverse {
			left, right = right, left
		}
		if fn == canon.Add || fn == canon.Sub {
			alpha, err := c.float(2)
			if err != nil {
				return nil, err
			}
			if alpha != 1 {
				if right, err = scaleBy(c, right, alpha); err != nil {
					return nil, err
				}
			}
		}
		sa, okA := scalarOf(left)
		sb, okB := scalarOf(right)
		if okA && okB {
			if mode == "floor" {
				fold = "floor_divide"
			} else if mode == "trunc" {
				v, err := foldScalar(fold, sa, sb)
				if s, ok := scalarOf(v); err == nil && ok {
					s.f, s.isInt = math.Trunc(s.f), sa.isInt && sb.isInt
					return s.value(), nil
				}
				return v, err
			}
			return foldScalar(fold, sa, sb)
		}
		a, aIsT := left.(*tensorVal)
		b, bIsT := right.(*tensorVal)
		if (!aIsT && !okA) || (!bIsT && !okB) {
			return nil, c.errf("unsupported operands %s and %s", typeName(left), typeName(right))
		}
		a, b, err := promoteOperands(c, a, b, left, right)
		if err != nil {
			return nil, err
		}
		if fn == canon.Div {
			return divide(c, a, b, mode)
		}
		return c.b().emit1(c.scope, &canon.Binary{Fn: fn}, a, b)
	}
}

// scaleBy multiplies a number or tensor by alpha (the alpha of add/sub).
func scaleBy(c *opCall, v value, alpha float64) (value, error) {
	if s, ok := scalarOf(v); ok {
		s.f *= alpha
		return s.value(), nil
	}
	t, ok := v.(*tensorVal)
	if !ok {
		return nil, c.errf("cannot scale a %s by alpha", typeName(v))
	}
	a, k, err := promoteOperands(c, t, nil, nil, alpha)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Binary{Fn: canon.Mul}, a, k)
}

func opFloorDivide(c *opCall) (value, error) {
	if err := c.bind("input", "other"); err != nil {
		return nil, err
	}
	sa, okA := scalarOf(c.bound[0])
	sb, okB := scalarOf(c.bound[1])
	if okA && okB {
		return foldScalar("floor_divide", sa, sb)
	}
	a, b, err := tensorPair(c)
	if err != nil {
		return nil, err
	}
	return divide(c, a, b, "floor")
}

func opNumToTensor(c *opCall) (value, error) {
	if err := c.bind("a"); err != nil {
		return nil, err
	}
	if d, ok := c.bound[0].(*dynInt); ok {
		return d, nil // int(NumToTensor(size)) gives the size back
	}
	s, ok := scalarOf(c.bound[0])
	if !ok || s.isTensor {
		return nil, c.errf("argument must be a number known at import, got %s", typeName(c.bound[0]))
	}
	s.isTensor = true
	return s.value(), nil
}

func opInt(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	switch x := c.bound[0].(type) {
	case *dynInt:
		return x, nil
	case *dynFloat:
		return c.b().truncToInt(c.scope, x)
	case *dynBool:
		return intOfBool(c, x)
	}
	if t, ok := c.bound[0].(*tensorVal); ok {
		if _, known := scalarOf(t); !known {
			k, computed := c.b().importTimeValue(t)
			if !computed {
				return c.b().runTimeInt(c.scope, t)
			}
			c.bound[0] = &tensorVal{konst: k}
		}
	}
	s, ok := scalarOf(c.bound[0])
	if !ok {
		return nil, c.errf("argument must be a number known at import, got %s (give --input-shape when it comes from a tensor size)", typeName(c.bound[0]))
	}
	return int64(s.f), nil
}

func opFloat(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	if t, ok := c.bound[0].(*tensorVal); ok {
		if _, known := scalarOf(t); !known {
			k, computed := c.b().importTimeValue(t)
			if !computed {
				return c.b().runTimeFloat(c.scope, t)
			}
			c.bound[0] = &tensorVal{konst: k}
		}
	}
	switch x := c.bound[0].(type) {
	case *dynFloat:
		return x, nil
	case *dynInt, *dynBool:
		t, _, err := c.b().floatTensor(c.scope, x)
		if err != nil {
			return nil, err
		}
		return &dynFloat{t: t}, nil
	}
	s, ok := scalarOf(c.bound[0])
	if !ok {
		return nil, c.errf("argument must be a number, got %s", typeName(c.bound[0]))
	}
	return s.f, nil
}

func opLen(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	switch x := c.bound[0].(type) {
	case *listVal:
		return int64(len(x.items)), nil
	case *tupleVal:
		return int64(len(x.items)), nil
	case *runList:
		return c.listLen(x)
	case *dictVal:
		return int64(len(x.keys)), nil
	case *tensorVal:
		// len(t) is t.size(0)
		return c.in.callOp(opTable["torch.size"], "torch.size", c.scope, []value{x, int64(0)}, nil)
	}
	return nil, c.errf("len of a %s is not supported", typeName(c.bound[0]))
}

func opGetattr(c *opCall) (value, error) {
	if err := c.bind("obj", "name"); err != nil {
		return nil, err
	}
	name, ok := c.bound[1].(string)
	if !ok {
		return nil, c.errf("attribute name must be a string")
	}
	return c.in.attribute(c.bound[0], name)
}

func opAnnotate(c *opCall) (value, error) {
	if err := c.bind("type", "value"); err != nil {
		return nil, err
	}
	if v, ok, err := implicitScalar(c); ok {
		return v, err
	}
	return c.bound[1], nil
}

func opCat(c *opCall) (value, error) {
	if err := c.bind("tensors", "dim=0"); err != nil {
		return nil, err
	}
	if l, ok := c.bound[0].(*runList); ok {
		return c.catList(l)
	}
	var items []value
	switch l := c.bound[0].(type) {
	case *listVal:
		items = l.items
	case *tupleVal:
		items = l.items
	default:
		return nil, c.errf("tensors must be a list")
	}
	if len(items) == 0 {
		return nil, c.errf("nothing to concatenate")
	}
	ins := make([]*tensorVal, len(items))
	for i, it := range items {
		t, ok := it.(*tensorVal)
		if !ok {
			return nil, c.errf("element %d is a %s, not a Tensor", i, typeName(it))
		}
		ins[i] = t
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d < 0 {
		r, err := c.rankOf(ins[0], "the first input")
		if err != nil {
			return nil, err
		}
		if d, err = c.axis(d, r); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Concat{Axis: d}, ins...)
}

// splitInto emits a Split into sizes along axis d and returns the pieces.
func splitInto(c *opCall, x *tensorVal, d int64, sizes []int64) (value, error) {
	outs, err := c.b().emit(c.scope, &canon.Split{Axis: d, Sizes: sizes}, []*tensorVal{x}, len(sizes))
	if err != nil {
		return nil, err
	}
	items := make([]value, len(outs))
	for i, o := range outs {
		items[i] = o
	}
	return &listVal{items: items}, nil
}

func splitAxis(c *opCall, x *tensorVal, di int) (int64, int64, error) {
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return 0, 0, err
	}
	d, err := c.int(di)
	if err != nil {
		return 0, 0, err
	}
	if d, err = c.axis(d, r); err != nil {
		return 0, 0, err
	}
	// Only the split dimension needs a size known at import.
	size := c.b().info(x).Shape[d]
	if !size.Known() {
		return 0, 0, c.errf("dimension %d of the input, which is split, is not known at import; give the input shape (--input-shape NAME=D1,D2,...)", d)
	}
	return d, size.Size, nil
}

// maxSplitPieces bounds the outputs of one chunk or split.
const maxSplitPieces = 1 << 16

func opChunk(c *opCall) (value, error) {
	x, err := c.bindInput("input", "chunks", "dim=0")
	if err != nil {
		return nil, err
	}
	chunks, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if chunks <= 0 || chunks > maxSplitPieces {
		return nil, c.errf("chunks must be between 1 and %d, got %d", maxSplitPieces, chunks)
	}
	d, n, err := splitAxis(c, x, 2)
	if err != nil {
		return nil, err
	}
	each := (n + chunks - 1) / chunks
	var sizes []int64
	for left := n; left > 0; left -= each {
		sizes = append(sizes, min(each, left))
	}
	if len(sizes) == 0 {
		sizes = []int64{0}
	}
	return splitInto(c, x, d, sizes)
}

func opSplit(c *opCall) (value, error) {
	x, err := c.bindInput("input", "split_size", "dim=0")
	if err != nil {
		return nil, err
	}
	if items, ok := listItems(c.bound[1]); ok && hasDynInt(items) {
		return splitRunTime(c, x, items)
	}
	d, n, err := splitAxis(c, x, 2)
	if err != nil {
		return nil, err
	}
	if each, ok := toInt(c.bound[1]); ok {
		if each <= 0 {
			return nil, c.errf("split_size must be positive")
		}
		if (n+each-1)/each > maxSplitPieces {
			return nil, c.errf("splitting %d elements into pieces of %d makes more than %d pieces", n, each, maxSplitPieces)
		}
		var sizes []int64
		for left := n; left > 0; left -= each {
			sizes = append(sizes, min(each, left))
		}
		return splitInto(c, x, d, sizes)
	}
	sizes, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, s := range sizes {
		total += s
	}
	if total != n {
		return nil, c.errf("sizes %v do not add up to %d", sizes, n)
	}
	return splitInto(c, x, d, sizes)
}

func opView(c *opCall) (value, error) {
	x, err := c.bindInput("input", "size")
	if err != nil {
		return nil, err
	}
	if items, ok := listItems(c.bound[1]); ok && hasDynInt(items) {
		return dynamicView(c, x, items)
	}
	shape, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	zero := false
	for _, s := range shape {
		zero = zero || s == 0
	}
	return c.b().emit1(c.scope, &canon.Reshape{Shape: shape, AllowZero: zero}, x)
}

func opFlatten(c *opCall) (value, error) {
	x, err := c.bindInput("input", "start_dim=0", "end_dim=-1")
	if err != nil {
		return nil, err
	}
	start, err := c.int(1)
	if err != nil {
		return nil, err
	}
	end, err := c.int(2)
	if err != nil {
		return nil, err
	}
	if start == 1 && end == -1 {
		return c.b().emit1(c.scope, &canon.Flatten{Axis: 1}, x)
	}
	if start == 0 && end == -1 {
		return c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{-1}}, x)
	}
	if v, ok, err := flattenRunTime(c, x, start, end); ok {
		return v, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if start, err = c.axis(start, len(shape)); err != nil {
		return nil, err
	}
	if end, err = c.axis(end, len(shape)); err != nil {
		return nil, err
	}
	if end < start {
		return nil, c.errf("end_dim comes before start_dim")
	}
	target := append([]int64{}, shape[:start]...)
	target = append(target, canon.NumElements(shape[start:end+1]))
	target = append(target, shape[end+1:]...)
	return c.b().emit1(c.scope, &canon.Reshape{Shape: target, AllowZero: true}, x)
}

func opSize(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=None")
	if err != nil {
		return nil, err
	}
	vi := c.b().info(x)
	if c.isNone(1) {
		if _, static := vi.StaticShape(); !static && vi.RankKnown && x.name != "" {
			return dynamicSizes(c, x)
		}
		shape, err := c.shapeOf(x, "the input")
		if err != nil {
			return nil, err
		}
		items := make([]value, len(shape))
		for i, s := range shape {
			items[i] = s
		}
		return &listVal{items: items}, nil
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if !vi.RankKnown {
		return nil, c.errf("the shape of the input is not known at import; give the input shape (--input-shape NAME=D1,D2,...)")
	}
	if d, err = c.axis(d, len(vi.Shape)); err != nil {
		return nil, err
	}
	if !vi.Shape[d].Known() {
		if x.name == "" {
			return nil, c.errf("dimension %d of the input is not known at import", d)
		}
		return dynamicSize(c, x, d)
	}
	return vi.Shape[d].Size, nil
}

func opTranspose(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim0", "dim1")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d0, err := c.int(1)
	if err != nil {
		return nil, err
	}
	d1, err := c.int(2)
	if err != nil {
		return nil, err
	}
	if d0, err = c.axis(d0, r); err != nil {
		return nil, err
	}
	if d1, err = c.axis(d1, r); err != nil {
		return nil, err
	}
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(i)
	}
	perm[d0], perm[d1] = perm[d1], perm[d0]
	out, err := c.b().emit1(c.scope, &canon.Transpose{Perm: perm}, x)
	if err != nil {
		return nil, err
	}
	c.b().permuteSymbols(x, out, perm)
	return out, nil
}

func opT(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if r < 2 {
		return x, nil
	}
	if r != 2 {
		return nil, c.errf("t() needs a tensor of rank at most 2")
	}
	return c.b().emit1(c.scope, &canon.Transpose{Perm: []int64{1, 0}}, x)
}

func opPermute(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dims")
	if err != nil {
		return nil, err
	}
	perm, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	for i := range perm {
		if perm[i], err = c.axis(perm[i], len(perm)); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Transpose{Perm: perm}, x)
}

func opContiguous(c *opCall) (value, error) {
	if err := c.bind("input", "memory_format=0"); err != nil {
		return nil, err
	}
	return c.tensor(0)
}

func opMean(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=None", "keepdim=False", "dtype=None")
	if err != nil {
		return nil, err
	}
	if x, err = reduceDType(c, x, 3); err != nil {
		return nil, err
	}
	keep, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	var axes []int64
	if !c.isNone(1) {
		if axes, err = c.ints(1, 0); err != nil {
			return nil, err
		}
		if r, err := c.rankOf(x, "the input"); err == nil {
			for i := range axes {
				if axes[i], err = c.axis(axes[i], r); err != nil {
					return nil, err
				}
			}
		}
	}
	return c.b().emit1(c.scope, &canon.Reduce{Fn: canon.ReduceMean, Axes: axes, KeepDims: keep}, x)
}

func opUnsqueeze(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d < 0 {
		r, err := c.rankOf(x, "the input")
		if err != nil {
			return nil, err
		}
		if d, err = c.axis(d, r+1); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Unsqueeze{Axes: []int64{d}}, x)
}

func opSqueeze(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=None")
	if err != nil {
		return nil, err
	}
	if c.isNone(1) {
		return c.b().emit1(c.scope, &canon.Squeeze{}, x)
	}
	if _, isList := listItems(c.bound[1]); isList {
		return squeezeDims(c, x)
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	if vi := c.b().info(x); vi.Shape[d].Known() && vi.Shape[d].Size != 1 {
		return x, nil // torch.squeeze leaves a non-1 dimension alone
	}
	return c.b().emit1(c.scope, &canon.Squeeze{Axes: []int64{d}}, x)
}

func listItems(v value) ([]value, bool) {
	switch x := v.(type) {
	case *listVal:
		return x.items, true
	case *tupleVal:
		return x.items, true
	}
	return nil, false
}

func hasDynInt(items []value) bool {
	for _, it := range items {
		if _, ok := it.(*dynInt); ok {
			return true
		}
	}
	return false
}
