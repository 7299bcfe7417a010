package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The prim:: builtins scripted code reads a tensor's properties and
// combines ints with: all known at import, or (min and max of ints known
// only at run time) computed by graph nodes.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"ops.prim.dtype":  entry(opPrimDType),
		"ops.prim.device": entry(opPrimDevice),
		"ops.prim.type":   entry(opPrimDeviceType),
		"ops.prim.min":    entry(opPrimMinMax(canon.VarMin), "Min", "Cast"),
		"ops.prim.max":    entry(opPrimMinMax(canon.VarMax), "Max", "Cast"),
		"torch.warn":      entry(opWarn),
		"torch.as_tensor": entry(opAsTensor, "Cast"),
	})
}

// opPrimDType is x.dtype: its ScalarType code, as the code passes dtypes.
func opPrimDType(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	dt := c.b().info(x).DType
	for code, d := range scalarTypes {
		if d == dt {
			return code, nil
		}
	}
	return nil, c.errf("a tensor of type %s has no ScalarType code this importer knows", dt)
}

// opPrimDevice is x.device: the graph computes on one device, "cpu".
func opPrimDevice(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	if _, err := c.tensor(0); err != nil {
		return nil, err
	}
	return "cpu", nil
}

// opPrimDeviceType is device.type.
func opPrimDeviceType(c *opCall) (value, error) {
	if err := c.bind("device"); err != nil {
		return nil, err
	}
	s, ok := c.bound[0].(string)
	if !ok {
		return nil, c.errf("the device is a %s, not a string", typeName(c.bound[0]))
	}
	for i := range s {
		if s[i] == ':' {
			return s[:i], nil
		}
	}
	return s, nil
}

// opPrimMinMax is min(a, b) or min(list) of numbers (prim::min, prim::max).
func opPrimMinMax(fn canon.VariadicFn) opHandler {
	return func(c *opCall) (value, error) {
		var items []value
		switch len(c.args) {
		case 1:
			l, ok := listItems(c.args[0])
			if !ok {
				return nil, c.errf("takes a list or two numbers, got a %s", typeName(c.args[0]))
			}
			items = l
		case 2:
			items = c.args
		default:
			return nil, c.errf("takes a list or two numbers")
		}
		if len(items) == 0 {
			return nil, c.errf("of an empty list")
		}
		if hasDynFloat(items) {
			return runTimeFloatMinMax(c, fn, items)
		}
		if !hasDynInt(items) {
			best, ok := scalarOf(items[0])
			if !ok {
				return nil, c.errf("of a %s", typeName(items[0]))
			}
			at := 0
			for i, it := range items[1:] {
				s, ok := scalarOf(it)
				if !ok {
					return nil, c.errf("of a %s", typeName(it))
				}
				if (fn == canon.VarMin && s.f < best.f) || (fn == canon.VarMax && s.f > best.f) {
					best, at = s, i+1
				}
			}
			if _, isT := items[at].(*tensorVal); isT {
				return nil, c.errf("of tensors")
			}
			return items[at], nil
		}
		ts := make([]*tensorVal, len(items))
		for i, it := range items {
			t, ok := intTensor(it)
			if !ok {
				return nil, c.errf("of a %s and an int known only at run time: only ints are supported", typeName(it))
			}
			ts[i] = t
		}
		t, err := c.b().emit1(c.scope, &canon.Variadic{Fn: fn}, ts...)
		if err != nil {
			return nil, err
		}
		return &dynInt{t: t, sym: t.name}, nil
	}
}

// opWarn is warnings.warn: nothing the graph computes.
func opWarn(c *opCall) (value, error) { return noneVal{}, nil }

// opAsTensor is torch.as_tensor(data, dtype, device): a tensor cast to
// dtype, or a tensor made of a list of numbers.
func opAsTensor(c *opCall) (value, error) {
	if err := c.bind("data", "dtype=None", "device=None"); err != nil {
		return nil, err
	}
	x, ok := c.bound[0].(*tensorVal)
	if !ok {
		return opTensorLiteral(c)
	}
	if c.isNone(1) {
		return x, nil
	}
	to, err := factoryDType(c, 1, canon.Float32)
	if err != nil {
		return nil, err
	}
	if c.b().info(x).DType == to {
		return x, nil
	}
	return c.b().emit1(c.scope, &canon.Cast{To: to}, x)
}
