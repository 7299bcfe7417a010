package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// torch.angle of a complex value: atan2(imaginary, real), spelled with
// Atan of the quotient, ±π where the real part is negative, and 0 at the
// origin (where the quotient is NaN); of a real tensor, 0 or π.
func init() {
	complexHandlers["torch.angle"] = opComplexAngle
	if _, taken := opTable["torch.angle"]; !taken {
		opTable["torch.angle"] = entry(opAngleOfReal, "Less", "Where", "IsNaN")
	}
}

// opAngleOfReal: the angle of a real number is π where it is negative,
// 0 elsewhere, NaN for NaN (floating-point tensors; torch gives integer
// tensors a float result, which is not read).
func opAngleOfReal(c *opCall) (value, error) {
	x, err := c.bindInput("self")
	if err != nil {
		return nil, err
	}
	b := c.b()
	dt := b.info(x).DType
	if !dt.IsFloat() {
		return nil, c.errf("angle of a %s tensor is not read (cast it to float first)", dt)
	}
	k := func(v float64) *tensorVal { return &tensorVal{konst: floatConst(dt, []int64{}, []float64{v})} }
	neg, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpLess}, x, k(0))
	if err != nil {
		return nil, err
	}
	a, err := b.emit1(c.scope, &canon.Where{}, neg, k(math.Pi), k(0))
	if err != nil {
		return nil, err
	}
	nan, err := b.emit1(c.scope, &canon.IsNaN{}, x)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Where{}, nan, x, a)
}

func opComplexAngle(c *opCall) (value, error) {
	z, err := c.bindInput("self")
	if err != nil {
		return nil, err
	}
	b := c.b()
	dt := b.info(z).DType
	part := func(k int64) (*tensorVal, error) {
		s, err := b.emit1(c.scope, &canon.Slice{Starts: []int64{k}, Ends: []int64{k + 1}, Axes: []int64{-1}, Steps: []int64{1}}, z)
		if err != nil {
			return nil, err
		}
		return b.emit1(c.scope, &canon.Squeeze{Axes: []int64{-1}}, s)
	}
	re, err := part(0)
	if err != nil {
		return nil, err
	}
	im, err := part(1)
	if err != nil {
		return nil, err
	}
	k := func(v float64) *tensorVal { return &tensorVal{konst: floatConst(dt, []int64{}, []float64{v})} }
	q, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Div}, im, re)
	if err != nil {
		return nil, err
	}
	a, err := b.emit1(c.scope, &canon.Math{Fn: canon.MathAtan}, q)
	if err != nil {
		return nil, err
	}
	neg, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpLess}, re, k(0))
	if err != nil {
		return nil, err
	}
	up, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpGreaterOrEqual}, im, k(0))
	if err != nil {
		return nil, err
	}
	pi, err := b.emit1(c.scope, &canon.Where{}, up, k(math.Pi), k(-math.Pi))
	if err != nil {
		return nil, err
	}
	shift, err := b.emit1(c.scope, &canon.Where{}, neg, pi, k(0))
	if err != nil {
		return nil, err
	}
	ang, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, a, shift)
	if err != nil {
		return nil, err
	}
	// At the origin the quotient is 0/0: torch's angle is 0.
	re0, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpEqual}, re, k(0))
	if err != nil {
		return nil, err
	}
	im0, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpEqual}, im, k(0))
	if err != nil {
		return nil, err
	}
	origin, err := b.emit1(c.scope, &canon.Logic{Fn: canon.LogicAnd}, re0, im0)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Where{}, origin, k(0), ang)
}
