package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The logic family: the logical ops (broadcast_logical_*, _logical_* and
// logical_not, which read nonzero as true and answer 0/1 in the input's
// dtype), maximum/minimum, mod (the divisor's sign, Python's %) and power,
// each in its broadcast_*, same-shape and _*_scalar forms, and hypot.
// MXNet's mod by zero gives 0 (its kernel tests the divisor) where ONNX's
// Mod is undefined, so a divisor not known to be nonzero is guarded with
// a Where. MXNet 1.x has no bitwise ops outside its numpy extension.

func init() {
	table := map[string]mxOp{
		"logical_not": {convLogicalNot, []string{"Not", "Cast"}},
	}
	for name, fn := range map[string]canon.LogicFn{"and": canon.LogicAnd, "or": canon.LogicOr, "xor": canon.LogicXor} {
		op := mxOp{logicConv(fn), []string{fn.String(), "Cast"}}
		table["broadcast_logical_"+name] = op
		table["_logical_"+name] = op
		table["_logical_"+name+"_scalar"] = mxOp{logicScalarConv(fn), []string{fn.String(), "Cast"}}
	}
	modKinds := []string{"Mod", "Equal", "Where"}
	for _, n := range []string{"broadcast_mod", "_mod", "_Mod"} {
		table[n] = mxOp{modConv(false, false), modKinds}
	}
	for _, n := range []string{"_mod_scalar", "_ModScalar"} {
		table[n] = mxOp{modConv(true, false), modKinds}
	}
	for _, n := range []string{"_rmod_scalar", "_RModScalar"} {
		table[n] = mxOp{modConv(true, true), modKinds}
	}
	hypotKinds := []string{"Mul", "Add", "Sqrt"}
	for _, n := range []string{"broadcast_hypot", "_hypot", "_Hypot"} {
		table[n] = mxOp{hypotConv(false), hypotKinds}
	}
	for _, n := range []string{"_hypot_scalar", "_HypotScalar"} {
		table[n] = mxOp{hypotConv(true), hypotKinds}
	}
	binary := func(mk func() canon.Op, kind string, names ...string) {
		for _, n := range names {
			table[n] = mxOp{logicBinary(mk, false, false), []string{kind}}
		}
	}
	scalar := func(mk func() canon.Op, kind string, rev bool, names ...string) {
		for _, n := range names {
			table[n] = mxOp{logicBinary(mk, true, rev), []string{kind}}
		}
	}
	maxOp := func() canon.Op { return &canon.Variadic{Fn: canon.VarMax} }
	minOp := func() canon.Op { return &canon.Variadic{Fn: canon.VarMin} }
	pow := func() canon.Op { return &canon.Pow{} }
	binary(maxOp, "Max", "broadcast_maximum", "_maximum", "_Maximum")
	binary(minOp, "Min", "broadcast_minimum", "_minimum", "_Minimum")
	binary(pow, "Pow", "broadcast_power", "_power", "_Power")
	scalar(maxOp, "Max", false, "_maximum_scalar", "_MaximumScalar")
	scalar(minOp, "Min", false, "_minimum_scalar", "_MinimumScalar")
	scalar(pow, "Pow", false, "_power_scalar", "_PowerScalar")
	scalar(pow, "Pow", true, "_rpower_scalar", "_RPowerScalar")
	optable.Add(&converters, table)
	optable.Add(&lacks, map[string]string{
		"BitwiseAnd": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseOr":  "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseXor": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseNot": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitShift":   "MXNet 1.x has no shift ops outside its numpy extension",
		"Mean":       "MXNet has no elementwise mean of several arrays (mean reduces)",
	})
}

// logicBinary reads a two-operand op: two arrays, or an array and the
// scalar attribute in the array's dtype (rev puts the scalar first).
func logicBinary(mk func() canon.Op, scalar, rev bool) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		x, err := b.in(c, 0)
		if err != nil {
			return nil, err
		}
		var y string
		if scalar {
			if err := c.a.required("scalar"); err != nil {
				return nil, err
			}
			s, err := c.a.float("scalar", 0)
			if err != nil {
				return nil, err
			}
			t, err := filled(c.n.Name+"_scalar", b.vals[x].DType, []int64{}, s)
			if err != nil {
				return nil, c.errf("%v", err)
			}
			y = b.constant(t)
		} else if y, err = b.in(c, 1); err != nil {
			return nil, err
		}
		ins := []string{x, y}
		if rev {
			ins = []string{y, x}
		}
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, mk(), ins, out)
	}
}

// toBool casts a non-bool value to bool (nonzero is true).
func toBool(b *builder, c *nodeCtx, v, suffix string) (string, error) {
	if b.vals[v].DType == canon.Bool {
		return v, nil
	}
	out := b.fresh(c.n.Name + suffix)
	return out, b.emit(out, &canon.Cast{To: canon.Bool}, []string{v}, out)
}

// fromBool writes the bool result r as node c's output in dtype dt, which
// is how MXNet answers a logical op.
func fromBool(b *builder, c *nodeCtx, r string, dt canon.DType) ([]string, error) {
	if dt == canon.Bool {
		return []string{r}, nil
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Cast{To: dt}, []string{r}, out)
}

func logicConv(fn canon.LogicFn) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		x, err := b.in(c, 0)
		if err != nil {
			return nil, err
		}
		y, err := b.in(c, 1)
		if err != nil {
			return nil, err
		}
		dt := b.vals[x].DType
		if x, err = toBool(b, c, x, "_a"); err != nil {
			return nil, err
		}
		if y, err = toBool(b, c, y, "_b"); err != nil {
			return nil, err
		}
		name := c.n.Name
		if dt != canon.Bool {
			name += "_bool"
		}
		r := b.fresh(name)
		if err := b.emit(r, &canon.Logic{Fn: fn}, []string{x, y}, r); err != nil {
			return nil, err
		}
		return fromBool(b, c, r, dt)
	}
}

func convLogicalNot(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	dt := b.vals[x].DType
	if x, err = toBool(b, c, x, "_a"); err != nil {
		return nil, err
	}
	name := c.n.Name
	if dt != canon.Bool {
		name += "_bool"
	}
	r := b.fresh(name)
	if err := b.emit(r, &canon.Not{}, []string{x}, r); err != nil {
		return nil, err
	}
	return fromBool(b, c, r, dt)
}

// operands reads a two-operand op's inputs: two arrays, or an array and
// the scalar attribute in the array's dtype (rev puts the scalar first).
// known is the scalar's value when there is one.
func operands(b *builder, c *nodeCtx, scalar, rev bool) (x, y string, known *float64, err error) {
	if x, err = b.in(c, 0); err != nil {
		return "", "", nil, err
	}
	if scalar {
		if err := c.a.required("scalar"); err != nil {
			return "", "", nil, err
		}
		s, err := c.a.float("scalar", 0)
		if err != nil {
			return "", "", nil, err
		}
		t, err := filled(c.n.Name+"_scalar", b.vals[x].DType, []int64{}, s)
		if err != nil {
			return "", "", nil, c.errf("%v", err)
		}
		y, known = b.constant(t), &s
	} else if y, err = b.in(c, 1); err != nil {
		return "", "", nil, err
	}
	if rev {
		x, y = y, x
	}
	return x, y, known, nil
}

// modConv reads mod. The divisor is guarded unless it is a constant
// without zeros: where it is 0, MXNet answers 0.
func modConv(scalar, rev bool) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		x, y, known, err := operands(b, c, scalar, rev)
		if err != nil {
			return nil, err
		}
		out := b.fresh(c.n.Name)
		if known != nil && !rev && *known != 0 || !divisorMayBeZero(b, y) {
			return []string{out}, b.emit(out, &canon.Mod{}, []string{x, y}, out)
		}
		dt := b.vals[y].DType
		zero, err := filled(c.n.Name+"_zero", dt, []int64{}, 0)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		one, err := filled(c.n.Name+"_one", dt, []int64{}, 1)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		z, o := b.constant(zero), b.constant(one)
		isZero, safe, m := b.fresh(c.n.Name+"_divisor_is_zero"), b.fresh(c.n.Name+"_divisor"), b.fresh(c.n.Name+"_mod")
		if err := b.emit(isZero, &canon.Compare{Fn: canon.CmpEqual}, []string{y, z}, isZero); err != nil {
			return nil, err
		}
		if err := b.emit(safe, &canon.Where{}, []string{isZero, o, y}, safe); err != nil {
			return nil, err
		}
		if err := b.emit(m, &canon.Mod{}, []string{x, safe}, m); err != nil {
			return nil, err
		}
		return []string{out}, b.emit(out, &canon.Where{}, []string{isZero, z, m}, out)
	}
}

// divisorMayBeZero is false only for a constant divisor without zeros.
func divisorMayBeZero(b *builder, y string) bool {
	k := b.vals[y].Const
	if k == nil {
		return true
	}
	v, err := k.Float64s()
	if err != nil {
		return true
	}
	for _, f := range v {
		if f == 0 {
			return true
		}
	}
	return false
}

// hypotConv reads hypot as sqrt(a·a + b·b); MXNet's float kernel computes
// the same root (it differs only where a·a overflows float32).
func hypotConv(scalar bool) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		x, y, known, err := operands(b, c, scalar, false)
		if err != nil {
			return nil, err
		}
		if !b.vals[x].DType.IsFloat() {
			return nil, c.errf("hypot of %s values is not supported (float only)", b.vals[x].DType)
		}
		xx, yy, sum := b.fresh(c.n.Name+"_a2"), b.fresh(c.n.Name+"_b2"), b.fresh(c.n.Name+"_sum")
		if err := b.emit(xx, &canon.Binary{Fn: canon.Mul}, []string{x, x}, xx); err != nil {
			return nil, err
		}
		if known != nil {
			// The scalar's square is a constant.
			t, err := filled(c.n.Name+"_scalar2", b.vals[x].DType, []int64{}, *known**known)
			if err != nil {
				return nil, c.errf("%v", err)
			}
			yy = b.constant(t)
		} else if err := b.emit(yy, &canon.Binary{Fn: canon.Mul}, []string{y, y}, yy); err != nil {
			return nil, err
		}
		if err := b.emit(sum, &canon.Binary{Fn: canon.Add}, []string{xx, yy}, sum); err != nil {
			return nil, err
		}
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, &canon.Math{Fn: canon.MathSqrt}, []string{sum}, out)
	}
}

// logicScalarConv reads _logical_*_scalar: the scalar, nonzero as true.
func logicScalarConv(fn canon.LogicFn) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		x, y, _, err := operands(b, c, true, false)
		if err != nil {
			return nil, err
		}
		dt := b.vals[x].DType
		if x, err = toBool(b, c, x, "_a"); err != nil {
			return nil, err
		}
		if y, err = toBool(b, c, y, "_b"); err != nil {
			return nil, err
		}
		r := b.fresh(c.n.Name + "_bool")
		if err := b.emit(r, &canon.Logic{Fn: fn}, []string{x, y}, r); err != nil {
			return nil, err
		}
		return fromBool(b, c, r, dt)
	}
}
