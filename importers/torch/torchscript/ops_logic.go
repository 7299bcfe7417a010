package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The logic family: torch.logical_*, the bitwise operators (x & y is
// torch.__and__, ~x torch.bitwise_not, on bools as on integers), the
// shifts, torch.maximum/minimum, torch.remainder/fmod and torch.pow.
// torch.max(a, b) and torch.min(a, b) share their names with the
// reductions: ops_extreme.go's entries dispatch on the arguments.

func init() {
	logic := func(fn canon.LogicFn) opHandler { return func(c *opCall) (value, error) { return opLogical(c, fn) } }
	bits := func(lf canon.LogicFn, bf canon.BitwiseFn) opHandler {
		return func(c *opCall) (value, error) { return opBitwise(c, lf, bf) }
	}
	shift := func(left bool) opHandler { return func(c *opCall) (value, error) { return opShift(c, left) } }
	extreme := func(fn canon.VariadicFn) opHandler { return func(c *opCall) (value, error) { return opExtreme(c, fn) } }
	mod := func(fmod bool) opHandler { return func(c *opCall) (value, error) { return opMod(c, fmod) } }
	t := map[string]opEntry{
		"torch.logical_and":         entry(logic(canon.LogicAnd), "And", "Cast"),
		"torch.logical_or":          entry(logic(canon.LogicOr), "Or", "Cast"),
		"torch.logical_xor":         entry(logic(canon.LogicXor), "Xor", "Cast"),
		"torch.logical_not":         entry(opLogicalNot, "Not", "Cast"),
		"torch.bitwise_not":         entry(opBitwiseNot, "BitwiseNot", "Not"),
		"torch.bitwise_left_shift":  entry(shift(true), "BitShift", "Cast", "Mul", "Mod", "Sub", "Div", "Less", "Where", "Pow", "Max", "Min", "Or", "Equal", "GreaterOrEqual"),
		"torch.bitwise_right_shift": entry(shift(false), "BitShift", "Cast", "Mul", "Mod", "Sub", "Div", "Less", "Where", "Pow", "Max", "Min", "Or", "Equal", "GreaterOrEqual"),
		"torch.__lshift__":          entry(shift(true), "BitShift", "Cast", "Mul", "Mod", "Sub", "Div", "Less", "Where", "Pow", "Max", "Min", "Or", "Equal", "GreaterOrEqual"),
		"torch.__rshift__":          entry(shift(false), "BitShift", "Cast", "Mul", "Mod", "Sub", "Div", "Less", "Where", "Pow", "Max", "Min", "Or", "Equal", "GreaterOrEqual"),
		"torch.maximum":             entry(extreme(canon.VarMax), "Max", "Cast"),
		"torch.minimum":             entry(extreme(canon.VarMin), "Min", "Cast"),
		"torch.remainder":           entry(mod(false), "Mod", "Cast"),
		"torch.fmod":                entry(mod(true), "Mod", "Cast"),
		"torch.pow":                 entry(opPow, "Pow", "Cast"),
	}
	for name, fns := range map[string]struct {
		l canon.LogicFn
		b canon.BitwiseFn
	}{
		"and": {canon.LogicAnd, canon.BitAnd}, "or": {canon.LogicOr, canon.BitOr}, "xor": {canon.LogicXor, canon.BitXor},
	} {
		kinds := []string{fns.l.String(), fns.b.String(), "Cast"}
		t["torch.bitwise_"+name] = entry(bits(fns.l, fns.b), kinds...)
		t["torch.__"+name+"__"] = entry(bits(fns.l, fns.b), kinds...)
	}
	optable.Add(&opTable, t)
	optable.Add(&opLacks, map[string]string{
		"Sum":  "TorchScript spells a sum of tensors as aten::add, read as Add",
		"Mean": "TorchScript has no elementwise mean of several tensors (torch.mean reduces, read as ReduceMean)",
	})
}

// tensorPair binds (input, other) and returns both as tensors: a Python
// number or 0-d constant takes the other operand's dtype, as torch's
// promotion does for numbers of the same category.
func tensorPair(c *opCall) (*tensorVal, *tensorVal, error) {
	if err := c.bind("input", "other"); err != nil {
		return nil, nil, err
	}
	left, right := c.bound[0], c.bound[1]
	a, aIsT := left.(*tensorVal)
	b, bIsT := right.(*tensorVal)
	_, okA := scalarOf(left)
	_, okB := scalarOf(right)
	if (!aIsT && !okA) || (!bIsT && !okB) || (!aIsT && !bIsT) {
		return nil, nil, c.errf("unsupported operands %s and %s (one must be a tensor)", typeName(left), typeName(right))
	}
	return promoteOperands(c, a, b, left, right)
}

// sameDTypes refuses tensors of different dtypes, which torch would
// promote with a cast this importer does not add.
func sameDTypes(c *opCall, a, b *tensorVal) (canon.DType, error) {
	da, db := c.b().info(a).DType, c.b().info(b).DType
	if da != db && da != canon.Undefined && db != canon.Undefined {
		return 0, c.errf("operands are %s and %s; cast one so both have one dtype", da, db)
	}
	return da, nil
}

// asBool casts a non-bool tensor to bool (nonzero is true), as torch's
// logical ops read their operands.
func asBool(c *opCall, t *tensorVal) (*tensorVal, error) {
	if c.b().info(t).DType == canon.Bool {
		return t, nil
	}
	return c.b().emit1(c.scope, &canon.Cast{To: canon.Bool}, t)
}

func opLogical(c *opCall, fn canon.LogicFn) (value, error) {
	a, b, err := tensorPair(c)
	if err != nil {
		return nil, err
	}
	if a, err = asBool(c, a); err != nil {
		return nil, err
	}
	if b, err = asBool(c, b); err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Logic{Fn: fn}, a, b)
}

func opLogicalNot(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	if x, err = asBool(c, x); err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Not{}, x)
}

// opBitwise: torch's &, |, ^ are logical on bools and bitwise on integers.
func opBitwise(c *opCall, lf canon.LogicFn, bf canon.BitwiseFn) (value, error) {
	a, b, err := tensorPair(c)
	if err != nil {
		return nil, err
	}
	dt, err := sameDTypes(c, a, b)
	if err != nil {
		return nil, err
	}
	switch {
	case dt == canon.Bool:
		return c.b().emit1(c.scope, &canon.Logic{Fn: lf}, a, b)
	case dt.IsInt():
		return c.b().emit1(c.scope, &canon.Bitwise{Fn: bf}, a, b)
	}
	return nil, c.errf("operands are %s; bitwise operations take bool or integer tensors", dt)
}

func opBitwiseNot(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	switch dt := c.b().info(x).DType; {
	case dt == canon.Bool:
		return c.b().emit1(c.scope, &canon.Not{}, x)
	case dt.IsInt():
		return c.b().emit1(c.scope, &canon.BitwiseNot{}, x)
	default:
		return nil, c.errf("input is %s; bitwise_not takes bool or integer tensors", dt)
	}
}

// opShift: canon's BitShift is ONNX's, on unsigned integers; torch shifts
// signed integers arithmetically, which it does not express.
func opShift(c *opCall, left bool) (value, error) {
	a, b, err := tensorPair(c)
	if err != nil {
		return nil, err
	}
	dt, err := sameDTypes(c, a, b)
	if err != nil {
		return nil, err
	}
	if isSigned(dt) {
		return shiftSigned(c, a, b, left)
	}
	if dt != canon.Uint8 {
		return nil, c.errf("shifts of %s tensors are not supported: only unsigned integers (uint8 in torch) have a canonical BitShift", dt)
	}
	return c.b().emit1(c.scope, &canon.BitShift{Left: left}, a, b)
}

func opExtreme(c *opCall, fn canon.VariadicFn) (value, error) {
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
	// torch promotes the operands (an int tensor and a float one meet in
	// the float type).
	if a, b, err = promoteOperands(c, a, b, a, b); err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Variadic{Fn: fn}, a, b)
}

func opMod(c *opCall, fmod bool) (value, error) {
	if v, ok, err := foldMod(c, fmod); ok || err != nil {
		return v, err
	}
	a, b, err := tensorPair(c)
	if err != nil {
		return nil, err
	}
	if _, err := sameDTypes(c, a, b); err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Mod{Fmod: fmod}, a, b)
}

// opPow follows torch's promotion where it differs from ONNX's Pow (which
// keeps the base's dtype): an integer base with a float exponent is cast
// to the float type first; integer tensors of two widths meet in the wider.
func opPow(c *opCall) (value, error) {
	if err := c.bind("input", "exponent"); err != nil {
		return nil, err
	}
	left, right := c.bound[0], c.bound[1]
	x, xIsT := left.(*tensorVal)
	e, eIsT := right.(*tensorVal)
	switch {
	case xIsT && !eIsT:
		s, ok := scalarOf(right)
		if !ok {
			return nil, c.errf("exponent must be a Tensor or a number, got %s", typeName(right))
		}
		dt := c.b().info(x).DType
		if !s.isInt && !dt.IsFloat() {
			// torch: int tensor ** float number is float32.
			var err error
			if x, err = c.b().emit1(c.scope, &canon.Cast{To: canon.Float32}, x); err != nil {
				return nil, err
			}
			dt = canon.Float32
		}
		k, err := scalarAs(s.f, dt)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		return c.b().emit1(c.scope, &canon.Pow{}, x, &tensorVal{konst: k})
	case !xIsT && eIsT:
		s, ok := scalarOf(left)
		if !ok {
			return nil, c.errf("base must be a Tensor or a number, got %s", typeName(left))
		}
		et := c.b().info(e).DType
		dt := et
		if !s.isInt && !et.IsFloat() {
			dt = canon.Float32
		}
		k, err := scalarAs(s.f, dt)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		return c.b().emit1(c.scope, &canon.Pow{}, &tensorVal{konst: k}, e)
	case !xIsT:
		return nil, c.errf("unsupported operands %s and %s (one must be a tensor)", typeName(left), typeName(right))
	}
	dt, et := c.b().info(x).DType, c.b().info(e).DType
	to := canon.Undefined
	switch {
	case dt == et || (dt.IsFloat() && et.IsInt()) || isZeroDimConst(e) && dtypeCategory(et) <= dtypeCategory(dt):
	case dt.IsInt() && et.IsFloat():
		to = et
	case dt.IsInt() && et.IsInt() && et.Size() > dt.Size() && isSigned(dt) == isSigned(et):
		to = et
	case dt.IsInt() && et.IsInt() && et.Size() < dt.Size() && isSigned(dt) == isSigned(et):
	default:
		return nil, c.errf("a %s base with a %s exponent is not supported; cast one so torch and ONNX agree on the result dtype", dt, et)
	}
	if to != canon.Undefined {
		var err error
		if x, err = c.b().emit1(c.scope, &canon.Cast{To: to}, x); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Pow{}, x, e)
}

func isSigned(dt canon.DType) bool {
	return dt == canon.Int8 || dt == canon.Int16 || dt == canon.Int32 || dt == canon.Int64
}
