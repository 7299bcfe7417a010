package torchscript

import "github.com/modelbridge/modelbridge/canon"

// divideKinds are the kinds divide and the promotion before it emit.
var divideKinds = []string{"Div", "Cast", "Mod", "Sub", "Abs", "Floor", "Sign", "Mul"}

// divide emits torch's division of two tensors of one dtype. Without a
// rounding mode it is true division: integers and bools are divided in
// float32, torch's default dtype. "trunc" rounds toward zero (ONNX's
// integer Div; floats are truncated as sign(q)·floor(|q|)); "floor" rounds
// down (integers: (a - a mod b) / b, exact; floats: floor(a / b)).
func divide(c *opCall, a, b *tensorVal, mode string) (value, error) {
	dt := c.b().info(a).DType
	isInt := dt == canon.Bool || dt.IsInt()
	emit := func(op canon.Op, ins ...*tensorVal) (*tensorVal, error) { return c.b().emit1(c.scope, op, ins...) }
	switch {
	case mode == "" && isInt:
		var err error
		if a, err = castTo(c, a, canon.Float32); err != nil {
			return nil, err
		}
		if b, err = castTo(c, b, canon.Float32); err != nil {
			return nil, err
		}
		return emit(&canon.Binary{Fn: canon.Div}, a, b)
	case mode == "" || mode == "trunc" && isInt:
		return emit(&canon.Binary{Fn: canon.Div}, a, b)
	case mode == "trunc":
		q, err := emit(&canon.Binary{Fn: canon.Div}, a, b)
		if err != nil {
			return nil, err
		}
		abs, err := emit(&canon.Math{Fn: canon.MathAbs}, q)
		if err != nil {
			return nil, err
		}
		fl, err := emit(&canon.Math{Fn: canon.MathFloor}, abs)
		if err != nil {
			return nil, err
		}
		sign, err := emit(&canon.Math{Fn: canon.MathSign}, q)
		if err != nil {
			return nil, err
		}
		return emit(&canon.Binary{Fn: canon.Mul}, sign, fl)
	case isInt:
		if dt == canon.Bool {
			return nil, c.errf("floor division of bool tensors is not defined")
		}
		m, err := emit(&canon.Mod{}, a, b)
		if err != nil {
			return nil, err
		}
		d, err := emit(&canon.Binary{Fn: canon.Sub}, a, m)
		if err != nil {
			return nil, err
		}
		return emit(&canon.Binary{Fn: canon.Div}, d, b)
	}
	q, err := emit(&canon.Binary{Fn: canon.Div}, a, b)
	if err != nil {
		return nil, err
	}
	return emit(&canon.Math{Fn: canon.MathFloor}, q)
}
