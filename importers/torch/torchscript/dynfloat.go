package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// dynFloat is a Python float known only at run time: float(t.item()), a
// size divided by a number, a scale computed from the image size. t is a
// 1-D float64 graph value of one element (as dynInt's is int64): a Python
// float is a double, and its arithmetic is done in float64 as TorchScript
// does it.
type dynFloat struct{ t *tensorVal }

// numberConst is the Python float f as a 1-D float64 constant of one
// element.
func numberConst(f float64) *tensorVal { return float64Const([]int64{1}, []float64{f}) }

// isNumber reports whether v is a number scripted code computes with (not
// a tensor): known at import or only at run time.
func isNumber(v value) bool {
	switch v.(type) {
	case int64, float64, bool, *dynInt, *dynBool, *dynFloat:
		return true
	}
	return false
}

// floatTensor is the number v as a 1-D float64 tensor of one element,
// converted as Python's float(v) converts an int or a bool.
func (b *builder) floatTensor(scope string, v value) (*tensorVal, bool, error) {
	switch x := v.(type) {
	case float64:
		return numberConst(x), true, nil
	case int64:
		return numberConst(float64(x)), true, nil
	case bool:
		if x {
			return numberConst(1), true, nil
		}
		return numberConst(0), true, nil
	case *dynFloat:
		return x.t, true, nil
	case *dynInt:
		t, err := b.emit1(scope, &canon.Cast{To: canon.Float64}, x.t)
		return t, true, err
	case *dynBool:
		s, err := b.emit1(scope, &canon.Reshape{}, x.t, oneShape())
		if err != nil {
			return nil, true, err
		}
		t, err := b.emit1(scope, &canon.Cast{To: canon.Float64}, s)
		return t, true, err
	}
	return nil, false, nil
}

// runTimeFloat makes t (a tensor of one element known only at run time) a
// Python float, as item() and float() read it: every tensor dtype widens
// to a double exactly.
func (b *builder) runTimeFloat(scope string, t *tensorVal) (*dynFloat, error) {
	vi := b.info(t)
	if n, ok := vi.StaticShape(); ok && numelOf(n) != 1 {
		return nil, fmt.Errorf("float() of a tensor of shape %v: only a tensor of one element converts to a number", n)
	}
	s, err := b.emit1(scope, &canon.Reshape{}, t, oneShape())
	if err != nil {
		return nil, err
	}
	if vi.DType != canon.Float64 {
		if s, err = b.emit1(scope, &canon.Cast{To: canon.Float64}, s); err != nil {
			return nil, err
		}
	}
	return &dynFloat{t: s}, nil
}

// truncToInt is int(f) of a run-time float: truncated toward zero, as
// aten::Int.float does (a cast from float64 to int64 truncates).
func (b *builder) truncToInt(scope string, f *dynFloat) (*dynInt, error) {
	t, err := b.emit1(scope, &canon.Cast{To: canon.Int64}, f.t)
	if err != nil {
		return nil, err
	}
	return &dynInt{t: t, sym: t.name}, nil
}

// floatArithmetic are the operators of two numbers whose result is a
// float when either is one; torch.div of two numbers is always a float.
var floatArithmetic = map[string]canon.BinaryFn{"torch.add": canon.Add, "torch.sub": canon.Sub, "torch.mul": canon.Mul, "torch.div": canon.Div}

// runTimeFloatArithmetic is a op b (or a ** b) of two numbers, one known only at run
// time, whose result is a Python float: both widen to double and the
// operation is done in float64. done is false when the call is not such a
// one (an int op int, or an operand that is not a number).
func (c *opCall) runTimeFloatArithmetic() (value, bool, error) {
	fn, ok := floatArithmetic[c.name]
	pow := c.name == "torch.pow" // a ** b, computed in float64 as C's pow
	if !(ok || pow) || len(c.args) != 2 || len(c.kwargs) != 0 || !isNumber(c.args[0]) || !isNumber(c.args[1]) {
		return nil, false, nil
	}
	anyFloat := c.name == "torch.div"
	for _, a := range c.args {
		switch a.(type) {
		case float64, *dynFloat:
			anyFloat = true
		}
	}
	if !anyFloat {
		return nil, false, nil
	}
	a, _, err := c.b().floatTensor(c.scope, c.args[0])
	if err != nil {
		return nil, true, err
	}
	b, _, err := c.b().floatTensor(c.scope, c.args[1])
	if err != nil {
		return nil, true, err
	}
	var op canon.Op = &canon.Binary{Fn: fn}
	if pow {
		op = &canon.Pow{}
	}
	t, err := c.b().emit1(c.scope, op, a, b)
	if err != nil {
		return nil, true, err
	}
	return &dynFloat{t: t}, true, nil
}

// runTimeNumberMath is math.floor, math.ceil and the other functions of
// one number (aten::floor.float and the like) applied to a number known
// only at run time: floor and ceil give ints, the rest floats computed in
// float64.
func (c *opCall) runTimeNumberMath() (value, bool, error) {
	if len(c.args) != 1 || len(c.kwargs) != 0 {
		return nil, false, nil
	}
	fn, ok := runTimeMathFns[c.name]
	if !ok {
		return nil, false, nil
	}
	switch x := c.args[0].(type) {
	case *dynInt:
		if c.name == "torch.floor" || c.name == "torch.ceil" {
			return x, true, nil // aten::floor.int is the int itself
		}
		if c.name == "torch.neg" {
			t, err := c.b().emit1(c.scope, &canon.Math{Fn: canon.MathNeg}, x.t)
			if err != nil {
				return nil, true, err
			}
			return &dynInt{t: t, sym: t.name}, true, nil
		}
	case *dynFloat:
	default:
		return nil, false, nil
	}
	f, _, err := c.b().floatTensor(c.scope, c.args[0])
	if err != nil {
		return nil, true, err
	}
	t, err := c.b().emit1(c.scope, &canon.Math{Fn: fn}, f)
	if err != nil {
		return nil, true, err
	}
	if c.name == "torch.floor" || c.name == "torch.ceil" {
		i, err := c.b().truncToInt(c.scope, &dynFloat{t: t})
		return i, true, err
	}
	return &dynFloat{t: t}, true, nil
}

// runTimeMathFns are the functions of one number that scalarMath computes
// at import, as the canonical math functions of a float64 value. log2 is
// left out: it has no canonical function and log(x)/log(2) may round
// differently.
var runTimeMathFns = map[string]canon.MathFn{
	"torch.floor": canon.MathFloor, "torch.ceil": canon.MathCeil, "torch.sqrt": canon.MathSqrt,
	"torch.log": canon.MathLog, "torch.exp": canon.MathExp, "torch.neg": canon.MathNeg,
}

// floatOperand converts a run-time float operand of an elementwise
// operator with tensor like into the 0-d tensor torch makes of it: a
// float32 or float64 tensor takes the double rounded to its dtype; an
// integer or bool tensor computes in float32 (the default dtype), so both
// become float32. other is like, cast when it must be.
func floatOperand(c *opCall, f *dynFloat, like *tensorVal) (scalarT, other *tensorVal, err error) {
	dt := c.b().info(like).DType
	other = like
	switch {
	case dt == canon.Float32 || dt == canon.Float64:
	case dt.IsInt() || dt == canon.Bool:
		dt = canon.Float32
		if other, err = c.b().emit1(c.scope, &canon.Cast{To: canon.Float32}, like); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, c.errf("a Python float known only at run time with a %s tensor: torch computes it in float32 and rounds the result to %s, which one canonical operation cannot reproduce exactly; cast the tensor to float32 first", dt, dt)
	}
	s, err := c.b().emit1(c.scope, &canon.Reshape{}, f.t, scalarShape())
	if err != nil {
		return nil, nil, err
	}
	if dt != canon.Float64 {
		if s, err = c.b().emit1(c.scope, &canon.Cast{To: dt}, s); err != nil {
			return nil, nil, err
		}
	}
	return s, other, nil
}

// intOfBool is int(b) of a run-time bool: 0 or 1.
func intOfBool(c *opCall, x *dynBool) (value, error) {
	s, err := c.b().emit1(c.scope, &canon.Reshape{}, x.t, oneShape())
	if err != nil {
		return nil, err
	}
	t, err := c.b().emit1(c.scope, &canon.Cast{To: canon.Int64}, s)
	if err != nil {
		return nil, err
	}
	return &dynInt{t: t, sym: t.name}, nil
}

func hasDynFloat(items []value) bool {
	for _, it := range items {
		if _, ok := it.(*dynFloat); ok {
			return true
		}
	}
	return false
}

// runTimeFloatMinMax is min or max of numbers one of which is a float
// known only at run time (prim::min.float, prim::min.int_float): a float.
func runTimeFloatMinMax(c *opCall, fn canon.VariadicFn, items []value) (value, error) {
	ts := make([]*tensorVal, len(items))
	for i, it := range items {
		t, ok, err := c.b().floatTensor(c.scope, it)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, c.errf("of a %s and a float known only at run time: only numbers are supported", typeName(it))
		}
		ts[i] = t
	}
	t, err := c.b().emit1(c.scope, &canon.Variadic{Fn: fn}, ts...)
	if err != nil {
		return nil, err
	}
	return &dynFloat{t: t}, nil
}

// runTimeFloatCompare compares two numbers, one known only at run time,
// when either is a float: both widen to double, as TorchScript compares an
// int with a float.
func runTimeFloatCompare(c *opCall, fn canon.CompareFn, left, right value) (value, bool, error) {
	isFloat := func(v value) bool {
		switch v.(type) {
		case float64, *dynFloat:
			return true
		}
		return false
	}
	if !isFloat(left) && !isFloat(right) {
		return nil, false, nil
	}
	a, okA, err := c.b().floatTensor(c.scope, left)
	if err != nil {
		return nil, true, err
	}
	b, okB, err := c.b().floatTensor(c.scope, right)
	if err != nil {
		return nil, true, err
	}
	if !okA || !okB {
		return nil, true, c.errf("comparison of a %s and a %s: only numbers are supported", typeName(left), typeName(right))
	}
	v, err := compareRunTime(c, fn, a, b)
	return v, true, err
}

// runTimeFloatTensorLiteral is torch.tensor of (nested) lists holding a
// float known only at run time: the numbers as doubles, concatenated,
// shaped and rounded to dt once, as torch converts each Python number.
func runTimeFloatTensorLiteral(c *opCall, leaves []value, shape []int64, dt canon.DType) (value, error) {
	if dt != canon.Float32 && dt != canon.Float64 {
		return nil, c.errf("a float known only at run time in a %s tensor: only float32 and float64 are supported (torch rounds the double to %s in a way one cast may not reproduce)", dt, dt)
	}
	parts := make([]*tensorVal, len(leaves))
	for i, l := range leaves {
		t, ok, err := c.b().floatTensor(c.scope, l)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, c.errf("an element is a %s, not a number", typeName(l))
		}
		parts[i] = t
	}
	return stackRunTimeLiteral(c, parts, shape, canon.Float64, dt)
}

// runTimeFloorDiv is int // int with an int known only at run time:
// Python's floor division, as divide's exact integer floor (a - a mod b) / b.
// Floor division of floats known only at run time is refused: done is
// false when neither operand is known only at run time.
func runTimeFloorDiv(c *opCall) (value, bool, error) {
	if !isRunTimeScalar(c.bound[0]) && !isRunTimeScalar(c.bound[1]) {
		return nil, false, nil
	}
	a, okA := intTensor(c.bound[0])
	b, okB := intTensor(c.bound[1])
	if !okA || !okB {
		return nil, true, c.errf("floor division of a %s and a %s, one known only at run time: only ints are supported", typeName(c.bound[0]), typeName(c.bound[1]))
	}
	q, err := divide(c, a, b, "floor")
	if err != nil {
		return nil, true, err
	}
	t := q.(*tensorVal)
	return &dynInt{t: t, sym: t.name}, true, nil
}

// runTimeBoundTensor is a number known only at run time, given as a bound
// of clamp on x, as the 0-d tensor of x's dtype torch converts it to (the
// result keeps x's dtype: a float tensor with any number, an integer
// tensor with an int).
func runTimeBoundTensor(c *opCall, v value, x *tensorVal) (*tensorVal, error) {
	dt := c.b().info(x).DType
	var t *tensorVal
	switch n := v.(type) {
	case *dynInt:
		t = n.t
	case *dynFloat:
		if !dt.IsFloat() {
			return nil, c.errf("a float bound known only at run time on a %s tensor is not supported", dt)
		}
		t = n.t
	default:
		return nil, c.errf("a bound is a %s, not a number", typeName(v))
	}
	if dt != canon.Float32 && dt != canon.Float64 && !dt.IsInt() {
		return nil, c.errf("a bound known only at run time on a %s tensor is not supported (torch computes it in float32)", dt)
	}
	s, err := c.b().emit1(c.scope, &canon.Reshape{}, t, scalarShape())
	if err != nil {
		return nil, err
	}
	if c.b().info(s).DType == dt {
		return s, nil
	}
	return c.b().emit1(c.scope, &canon.Cast{To: dt}, s)
}
