package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// scalarCompare compares two numbers of scripted code (not tensors): done
// is false when either operand is a tensor. Numbers known at import give a
// bool; an int known only at run time gives a run-time bool.
func scalarCompare(c *opCall, fn canon.CompareFn, left, right value) (value, bool, error) {
	if _, ok := left.(*tensorVal); ok {
		return nil, false, nil
	}
	if _, ok := right.(*tensorVal); ok {
		return nil, false, nil
	}
	dynL := isRunTimeScalar(left)
	dynR := isRunTimeScalar(right)
	if !dynL && !dynR {
		a, okA := scalarOf(left)
		b, okB := scalarOf(right)
		if !okA || !okB {
			if fn == canon.CmpEqual {
				if r, ok := staticEqual(left, right); ok {
					return r, true, nil
				}
			}
			return nil, true, c.errf("unsupported operands %s and %s", typeName(left), typeName(right))
		}
		var r bool
		switch fn {
		case canon.CmpEqual:
			r = a.f == b.f
		case canon.CmpLess:
			r = a.f < b.f
		case canon.CmpLessOrEqual:
			r = a.f <= b.f
		case canon.CmpGreater:
			r = a.f > b.f
		case canon.CmpGreaterOrEqual:
			r = a.f >= b.f
		}
		return r, true, nil
	}
	if v, done, err := runTimeFloatCompare(c, fn, left, right); done {
		return v, true, err
	}
	ta, okA := intTensor(left)
	tb, okB := intTensor(right)
	if !okA || !okB {
		return nil, true, c.errf("comparison of a %s and a %s, one known only at run time: only ints are supported", typeName(left), typeName(right))
	}
	v, err := compareRunTime(c, fn, ta, tb)
	return v, true, err
}

// compareRunTime is a comparison of two numbers known only at run time:
// a bool known only at run time.
func compareRunTime(c *opCall, fn canon.CompareFn, a, b *tensorVal) (value, error) {
	t, err := c.b().emit1(c.scope, &canon.Compare{Fn: fn}, a, b)
	if err != nil {
		return nil, err
	}
	s, err := c.b().emit1(c.scope, &canon.Reshape{}, t, scalarShape())
	if err != nil {
		return nil, err
	}
	return &dynBool{t: s}, nil
}

// staticEqual compares strings and None.
func staticEqual(a, b value) (bool, bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y, true
	case noneVal:
		_, ok := b.(noneVal)
		return ok, true
	}
	return false, false
}

// notScalar negates a comparison of numbers.
func notScalar(c *opCall, eq value) (value, bool, error) {
	switch x := eq.(type) {
	case bool:
		return !x, true, nil
	case *dynBool:
		t, err := c.b().emit1(c.scope, &canon.Not{}, x.t)
		if err != nil {
			return nil, true, err
		}
		return &dynBool{t: t}, true, nil
	}
	return nil, false, nil
}
