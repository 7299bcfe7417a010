package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// torch.linspace and torch.logspace with a step count known at import
// become constants, computed as torch's CPU kernels compute them: the
// first half of the points counted up from start, the rest down from end,
// in the dtype's arithmetic (float64 steps for integer dtypes, truncated).

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.linspace": entry(opSpace(false)),
		"torch.logspace": entry(opSpace(true)),
	})
}

func opSpace(log bool) opHandler {
	return func(c *opCall) (value, error) {
		schema := []string{"start", "end", "steps"}
		if log {
			schema = append(schema, "base=10.0")
		}
		schema = append(schema, factoryTail...)
		if err := c.bind(schema...); err != nil {
			return nil, err
		}
		var bounds [2]float64
		for i := range bounds {
			s, ok := scalarOf(c.bound[i])
			if !ok {
				return nil, c.errf("argument %s must be a number known at import, got %s", c.params[i], typeName(c.bound[i]))
			}
			bounds[i] = s.f
		}
		steps, err := c.int(2)
		if err != nil {
			return nil, err
		}
		if steps < 0 {
			return nil, c.errf("number of steps must be non-negative, got %d", steps)
		}
		base := 10.0
		dtypeArg := 3
		if log {
			if base, err = c.float(3); err != nil {
				return nil, err
			}
			dtypeArg = 4
		}
		dt, err := factoryDType(c, dtypeArg, canon.Float32)
		if err != nil {
			return nil, err
		}
		if dt == canon.Bool {
			return nil, c.errf("a bool %s is not supported", c.name)
		}
		var vals []float64
		if log {
			vals = logspaceValues(bounds[0], bounds[1], steps, base, dt)
		} else {
			vals = linspaceValues(bounds[0], bounds[1], steps, dt)
		}
		t := &canon.Tensor{DType: dt, Shape: []int64{steps}}
		for _, v := range vals {
			if dt.IsInt() {
				v = math.Trunc(v)
			}
			k, err := scalarAs(v, dt)
			if err != nil {
				return nil, c.errf("%v", err)
			}
			t.Data = append(t.Data, k.Data...)
		}
		return &tensorVal{konst: t}, nil
	}
}

// roundToDType rounds v to dt's precision (float32 for the narrower floats,
// whose kernels compute in float32 here).
func roundToDType(v float64, dt canon.DType) float64 {
	if dt == canon.Float32 || dt == canon.Float16 || dt == canon.BFloat16 {
		return float64(float32(v))
	}
	if dt.IsInt() {
		return math.Trunc(v)
	}
	return v
}

func linspaceValues(start, end float64, steps int64, dt canon.DType) []float64 {
	out := make([]float64, steps)
	if steps == 1 {
		out[0] = roundToDType(start, dt)
		return out
	}
	halfway := steps / 2
	if dt == canon.Float32 || dt == canon.Float16 || dt == canon.BFloat16 {
		s, e := float32(start), float32(end)
		step := (e - s) / float32(steps-1)
		for i := range out {
			if int64(i) < halfway {
				out[i] = float64(s + step*float32(i))
			} else {
				out[i] = float64(e - step*float32(steps-int64(i)-1))
			}
		}
		return out
	}
	s, e := roundToDType(start, dt), roundToDType(end, dt)
	step := (e - s) / float64(steps-1)
	for i := range out {
		if int64(i) < halfway {
			out[i] = s + step*float64(i)
		} else {
			out[i] = e - step*float64(steps-int64(i)-1)
		}
	}
	return out
}

// logspaceValues: base^(start + step·i) in float64 (torch raises a double
// base to double exponents), start and end first rounded to the dtype.
func logspaceValues(start, end float64, steps int64, base float64, dt canon.DType) []float64 {
	out := make([]float64, steps)
	s, e := roundToDType(start, dt), roundToDType(end, dt)
	if steps == 1 {
		out[0] = math.Pow(base, s)
		return out
	}
	step := (e - s) / float64(steps-1)
	halfway := steps / 2
	for i := range out {
		if int64(i) < halfway {
			out[i] = math.Pow(base, s+step*float64(i))
		} else {
			out[i] = math.Pow(base, e-step*float64(steps-int64(i)-1))
		}
	}
	return out
}

// runTimeBound is a bound of torch.arange that is a one-element tensor
// computed at run time (arange(t) traces as arange(annotate(number, t))).
func runTimeBound(c *opCall, v value) (*tensorVal, bool) {
	t, ok := v.(*tensorVal)
	if !ok || t.konst != nil {
		return nil, false
	}
	if s, ok := c.b().info(t).StaticShape(); ok {
		n := int64(1)
		for _, d := range s {
			n *= d
		}
		if n != 1 {
			return nil, false
		}
	}
	return t, true
}

// scalarBound makes a run-time bound a rank-0 tensor of the arange's
// dtype.
func scalarBound(c *opCall, t *tensorVal, dt canon.DType) (*tensorVal, error) {
	r, err := c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{}}, t)
	if err != nil {
		return nil, err
	}
	return castTo(c, r, dt)
}
