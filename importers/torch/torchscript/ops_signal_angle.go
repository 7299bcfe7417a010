package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// torch.angle of a complex value: atan2(imaginary, real), spelled with
// Atan of the quotient, ±π where the real part is negative, and 0 at the
// origin (where the quotient is NaN). Read only for complex arguments
// here (complexHandlers); real tensors are left to the math operators.
func init() {
	complexHandlers["torch.angle"] = opComplexAngle
	if _, taken := opTable["torch.angle"]; !taken {
		opTable["torch.angle"] = entry(opAngleOfReal)
	}
}

func opAngleOfReal(c *opCall) (value, error) {
	return nil, c.errf("angle of a real tensor is not read yet (complex values are: torch.view_as_complex, torch.fft)")
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
