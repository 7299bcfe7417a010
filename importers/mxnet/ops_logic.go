package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The logic family: the logical ops (broadcast_logical_*, _logical_* and
// logical_not, which read nonzero as true and answer 0/1 in the input's
// dtype), maximum/minimum, mod (the divisor's sign, Python's %) and power,
// each in its broadcast_*, same-shape and _*_scalar forms. MXNet 1.x has
// no bitwise ops outside its numpy extension.

func init() {
	table := map[string]mxOp{
		"logical_not": {convLogicalNot, []string{"Not", "Cast"}},
	}
	for name, fn := range map[string]canon.LogicFn{"and": canon.LogicAnd, "or": canon.LogicOr, "xor": canon.LogicXor} {
		op := mxOp{logicConv(fn), []string{fn.String(), "Cast"}}
		table["broadcast_logical_"+name] = op
		table["_logical_"+name] = op
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
	mod := func() canon.Op { return &canon.Mod{} }
	pow := func() canon.Op { return &canon.Pow{} }
	binary(maxOp, "Max", "broadcast_maximum", "_maximum", "_Maximum")
	binary(minOp, "Min", "broadcast_minimum", "_minimum", "_Minimum")
	binary(mod, "Mod", "broadcast_mod", "_mod", "_Mod")
	binary(pow, "Pow", "broadcast_power", "_power", "_Power")
	scalar(maxOp, "Max", false, "_maximum_scalar", "_MaximumScalar")
	scalar(minOp, "Min", false, "_minimum_scalar", "_MinimumScalar")
	scalar(mod, "Mod", false, "_mod_scalar", "_ModScalar")
	scalar(mod, "Mod", true, "_rmod_scalar", "_RModScalar")
	scalar(pow, "Pow", false, "_power_scalar", "_PowerScalar")
	scalar(pow, "Pow", true, "_rpower_scalar", "_RPowerScalar")
	optable.Add(&converters, table)
	optable.Add(&lacks, map[string]string{
		"BitwiseAnd": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseOr":  "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseXor": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseNot": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitShift":   "MXNet 1.x has no shift ops outside its numpy extension",
		"Sum":        "add_n and ElementWiseSum are read as a chain of Add nodes (the same sums)",
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
