package torchscript

import "math"

// foldMod computes torch.remainder / torch.fmod of two numbers known at
// import, as traced size arithmetic does (Swin's window padding:
// remainder(7 - remainder(W, 7), 7) on a size W made a tensor by
// prim::NumToTensor), so that int() of the result stays a number. ok is
// false when either operand is only known at run time.
func foldMod(c *opCall, fmod bool) (v value, ok bool, err error) {
	if err := c.bind("input", "other"); err != nil {
		return nil, false, err
	}
	a, okA := scalarOf(c.bound[0])
	b, okB := scalarOf(c.bound[1])
	if !okA || !okB {
		return nil, false, nil
	}
	r := scalar{isInt: a.isInt && b.isInt, isTensor: a.isTensor || b.isTensor}
	if b.f == 0 {
		if r.isInt {
			return nil, true, c.errf("integer remainder by zero")
		}
		r.f = math.NaN()
		return r.value(), true, nil
	}
	if fmod {
		r.f = math.Mod(a.f, b.f) // the sign of the dividend, as C's fmod
	} else {
		r.f = a.f - math.Floor(a.f/b.f)*b.f // the sign of the divisor, as Python's %
	}
	return r.value(), true, nil
}
