package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// clampTensors is torch.clamp (clamp_min, clamp_max) with a tensor bound:
// min(max(x, lo), hi) elementwise. A NaN in x or in a bound gives NaN, as
// torch's kernel does, which canon's Max and Min propagate. iMin or iMax
// is -1 where the call has no such bound.
func clampTensors(c *opCall, iMin, iMax int) (value, error) {
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	y := x
	for k, i := range []int{iMin, iMax} {
		if i < 0 || c.isNone(i) {
			continue
		}
		if isRunTimeScalar(c.bound[i]) {
			t, err := runTimeBoundTensor(c, c.bound[i], x)
			if err != nil {
				return nil, err
			}
			c.bound[i] = t
		}
		bound, isTensor := c.bound[i].(*tensorVal)
		var num value
		if !isTensor {
			if _, ok := scalarOf(c.bound[i]); !ok {
				return nil, c.errf("argument %s must be a number or a Tensor, got %s", c.params[i], typeName(c.bound[i]))
			}
			num = c.bound[i]
		}
		a, b, err := promoteOperands(c, y, bound, nil, num)
		if err != nil {
			return nil, err
		}
		fn := canon.VarMax
		if k == 1 {
			fn = canon.VarMin
		}
		if y, err = c.b().emit1(c.scope, &canon.Variadic{Fn: fn}, a, b); err != nil {
			return nil, err
		}
	}
	return y, nil
}

// hasTensorBound reports whether argument i is a tensor (a 0-d
// constant one included: traced code keeps numbers so).
func hasTensorBound(c *opCall, i int) bool {
	_, ok := c.bound[i].(*tensorVal)
	return ok || isRunTimeScalar(c.bound[i])
}
