package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The scalar operators scripted code uses around its branches and loops.

func init() {
	globalNames["unchecked_cast"] = true
	builderKinds["If"] = "a scripted if whose condition only a run tells"
	builderKinds["Loop"] = "a scripted for or while loop"
	optable.Add(&opTable, map[string]opEntry{
		"bool":                    entry(opBool, "Reshape", "Cast", "Equal", "Not"),
		"torch.Bool":              entry(opBool, "Reshape", "Cast", "Equal", "Not"),
		"torch.__not__":           entry(opNot, "Not"),
		"torch.__is__":            entry(opIs(false)),
		"torch.__isnot__":         entry(opIs(true)),
		"torch.__range_length":    entry(opRangeLength, "Sub", "Relu"),
		"torch.__derive_index":    entry(opDeriveIndex, "Mul", "Add"),
		"torch.len":               entry(opLen, "Shape", "Add"),
		"unchecked_cast":          entry(opAnnotate),
		"ops.prim.RaiseException": entry(opRaise),
		"torch.append":            entry(opAppend, "Unsqueeze", "Concat"),
		"ops.aten.append":         entry(opAppend, "Unsqueeze", "Concat"),
		"torch.dim":               entry(opDim),
	})
}

// opBool reads bool(x): a bool known at import, or a run-time bool.
func opBool(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	switch x := c.bound[0].(type) {
	case bool, *dynBool:
		return x, nil
	case int64:
		return x != 0, nil
	case float64:
		return x != 0, nil
	case *dynInt:
		zero, _ := intTensor(int64(0))
		eq, err := c.b().emit1(c.scope, &canon.Compare{Fn: canon.CmpEqual}, x.t, zero)
		if err != nil {
			return nil, err
		}
		ne, err := c.b().emit1(c.scope, &canon.Not{}, eq)
		if err != nil {
			return nil, err
		}
		return c.b().runTimeBool(c.scope, ne)
	case *tensorVal:
		if s, ok := scalarOf(x); ok {
			return s.f != 0, nil
		}
		return c.b().runTimeBool(c.scope, x)
	}
	return nil, c.errf("bool() of a %s", typeName(c.bound[0]))
}

func opNot(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	if v, ok := c.b().constBool(c.bound[0]); ok {
		return !v, nil
	}
	d, ok := c.bound[0].(*dynBool)
	if !ok {
		return nil, c.errf("not of a %s", typeName(c.bound[0]))
	}
	t, err := c.b().emit1(c.scope, &canon.Not{}, d.t)
	if err != nil {
		return nil, err
	}
	return &dynBool{t: t}, nil
}

// opIs reads "a is b" (negated: "a is not b"), which scripted code uses
// to test optional values against None: known at import.
func opIs(negate bool) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("a", "b"); err != nil {
			return nil, err
		}
		_, aNone := c.bound[0].(noneVal)
		_, bNone := c.bound[1].(noneVal)
		var same bool
		switch {
		case aNone || bNone:
			same = aNone && bNone
		default:
			x, okX := c.bound[0].(*tensorVal)
			y, okY := c.bound[1].(*tensorVal)
			if !okX || !okY {
				return nil, c.errf("identity test of a %s and a %s: only tests against None and of tensors are supported", typeName(c.bound[0]), typeName(c.bound[1]))
			}
			same = x == y
		}
		return same != negate, nil
	}
}

// opRangeLength is the number of values range(lo, hi, step) yields.
func opRangeLength(c *opCall) (value, error) {
	if err := c.bind("lo", "hi", "step"); err != nil {
		return nil, err
	}
	lo, okLo := c.bound[0].(int64)
	hi, okHi := c.bound[1].(int64)
	step, okStep := c.bound[2].(int64)
	if !okStep || step == 0 {
		return nil, c.errf("range() step must be a nonzero int known at import, got %v", c.bound[2])
	}
	if okLo && okHi {
		if step > 0 && lo < hi {
			return (hi - lo + step - 1) / step, nil
		}
		if step < 0 && lo > hi {
			return (lo - hi - step - 1) / -step, nil
		}
		return int64(0), nil
	}
	if step != 1 {
		return nil, c.errf("range() with a step of %d and bounds known only at run time is not supported", step)
	}
	a, okA := intTensor(c.bound[0])
	b, okB := intTensor(c.bound[1])
	if !okA || !okB {
		return nil, c.errf("range() bounds must be ints, got %s and %s", typeName(c.bound[0]), typeName(c.bound[1]))
	}
	diff, err := c.b().emit1(c.scope, &canon.Binary{Fn: canon.Sub}, b, a)
	if err != nil {
		return nil, err
	}
	n, err := c.b().emit1(c.scope, &canon.Unary{Fn: canon.Relu}, diff) // max(hi - lo, 0)
	if err != nil {
		return nil, err
	}
	return &dynInt{t: n, sym: n.name}, nil
}

// opDeriveIndex is the value of range(start, _, step) at iteration index:
// start + index*step.
func opDeriveIndex(c *opCall) (value, error) {
	if err := c.bind("index", "start", "step"); err != nil {
		return nil, err
	}
	i, okI := c.bound[0].(int64)
	start, okS := c.bound[1].(int64)
	step, okT := c.bound[2].(int64)
	if okI && okS && okT {
		return start + i*step, nil
	}
	ts := make([]*tensorVal, 3)
	for k := range ts {
		t, ok := intTensor(c.bound[k])
		if !ok {
			return nil, c.errf("argument %d is a %s, not an int", k, typeName(c.bound[k]))
		}
		ts[k] = t
	}
	prod, err := c.b().emit1(c.scope, &canon.Binary{Fn: canon.Mul}, ts[0], ts[2])
	if err != nil {
		return nil, err
	}
	sum, err := c.b().emit1(c.scope, &canon.Binary{Fn: canon.Add}, ts[1], prod)
	if err != nil {
		return nil, err
	}
	return &dynInt{t: sum, sym: sum.name}, nil
}

// opRaise is an exception the code raises on a path taken at import.
func opRaise(c *opCall) (value, error) {
	msg := "an exception"
	if len(c.args) > 0 {
		if s, ok := c.args[0].(string); ok {
			msg = fmt.Sprintf("%q", s)
		}
	}
	return nil, c.errf("the model raises %s for these input shapes (prim::RaiseException on a path known at import)", msg)
}

// opAppend appends to a list (see control_lists.go for appends inside
// branches and loops).
func opAppend(c *opCall) (value, error) {
	if err := c.bind("list", "el"); err != nil {
		return nil, err
	}
	return c.listAppend(c.bound[0], c.bound[1])
}

// opDim is x.dim(), the rank, known at import.
func opDim(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	vi := c.b().info(x)
	if !vi.RankKnown {
		return nil, c.errf("the rank of %s is not known at import: give its shape (--input-shape)", x.name)
	}
	return int64(len(vi.Shape)), nil
}
