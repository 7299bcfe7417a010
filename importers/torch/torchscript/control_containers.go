package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&opTable, map[string]opEntry{"torch.extend": entry(opExtend, "Unsqueeze", "Concat")})
}

// Operators that scripted code applies to lists and dicts under the names
// of tensor operators (aten::slice.t, aten::__getitem__.Dict_str, ...):
// they are dispatched here on the type of their first argument, before the
// tensor handler is looked at.

// containerCall runs c when its first argument is a list, tuple or dict
// that the operator has a container form for; done is false otherwise.
func (c *opCall) containerCall() (value, bool, error) {
	if len(c.args) == 0 {
		return nil, false, nil
	}
	switch x := c.args[0].(type) {
	case int64, float64:
		if f, ok := scalarMath[c.name]; ok && len(c.args) == 1 {
			return f(c.args[0]), true, nil
		}
		if c.name == "torch.pow" && len(c.args) == 2 {
			if v, ok := scalarPow(c.args[0], c.args[1]); ok {
				return v, true, nil
			}
		}
	case *listVal, *tupleVal:
		switch c.name {
		case "torch.slice":
			v, err := c.listSlice()
			return v, true, err
		case "torch.mul":
			if len(c.args) == 2 {
				n, ok := c.args[1].(int64)
				if !ok {
					return nil, true, c.errf("a list repeated by a %s: only ints known at import are supported", typeName(c.args[1]))
				}
				a, _ := listItems(c.args[0])
				var items []value
				for i := int64(0); i < n; i++ {
					items = append(items, a...)
				}
				return c.b().madeList(&listVal{items: items}), true, nil
			}
		case "torch.add":
			if _, isList := c.args[0].(*listVal); isList && len(c.args) == 2 {
				a, _ := listItems(c.args[0])
				b, ok := c.args[1].(*listVal)
				if !ok {
					return nil, true, c.errf("can only concatenate a list to a list, not a %s", typeName(c.args[1]))
				}
				items := append(append([]value(nil), a...), b.items...)
				return c.b().madeList(&listVal{items: items}), true, nil
			}
		}
	case *dictVal:
		switch c.name {
		case "torch.__getitem__":
			if len(c.args) != 2 {
				return nil, true, c.errf("takes a dict and a key")
			}
			v, err := x.get(c.args[1])
			if err != nil {
				return nil, true, c.errf("%v", err)
			}
			return v, true, nil
		case "torch.get":
			v, err := c.dictGet(x)
			return v, true, err
		}
	}
	return nil, false, nil
}

// scalarMath are the math functions of a number known at import
// (aten::ceil.float and the like): ceil and floor give ints.
var scalarMath = map[string]func(value) value{
	"torch.ceil":  func(v value) value { s, _ := scalarOf(v); return int64(math.Ceil(s.f)) },
	"torch.floor": func(v value) value { s, _ := scalarOf(v); return int64(math.Floor(s.f)) },
	"torch.sqrt":  func(v value) value { s, _ := scalarOf(v); return math.Sqrt(s.f) },
	"torch.log":   func(v value) value { s, _ := scalarOf(v); return math.Log(s.f) },
	"torch.exp":   func(v value) value { s, _ := scalarOf(v); return math.Exp(s.f) },
	"torch.log2":  func(v value) value { s, _ := scalarOf(v); return math.Log2(s.f) },
	"torch.neg": func(v value) value {
		if i, ok := v.(int64); ok {
			return -i
		}
		s, _ := scalarOf(v)
		return -s.f
	},
}

// listSlice is l[start:end:step] (aten::slice.t), with Python's clamping.
func (c *opCall) listSlice() (value, error) {
	if err := c.bind("l", "start=None", "end=None", "step=1"); err != nil {
		return nil, err
	}
	items, _ := listItems(c.bound[0])
	n := int64(len(items))
	step, ok := c.bound[3].(int64)
	if !ok || step == 0 {
		return nil, c.errf("slice step must be a nonzero int known at import, got %s", typeName(c.bound[3]))
	}
	bound := func(v value, dflt int64) (int64, error) {
		if _, none := v.(noneVal); none {
			return dflt, nil
		}
		i, ok := v.(int64)
		if !ok {
			return 0, c.errf("slice bound is a %s, not an int known at import", typeName(v))
		}
		if i < 0 {
			i += n
			if i < 0 {
				i = min(0, dflt)
			}
		}
		if i > n {
			i = n
			if step < 0 {
				i = n - 1
			}
		}
		return i, nil
	}
	var start, end int64
	var err error
	if step > 0 {
		if start, err = bound(c.bound[1], 0); err != nil {
			return nil, err
		}
		if end, err = bound(c.bound[2], n); err != nil {
			return nil, err
		}
	} else {
		if start, err = bound(c.bound[1], n-1); err != nil {
			return nil, err
		}
		if end, err = bound(c.bound[2], -1); err != nil {
			return nil, err
		}
	}
	out := &listVal{}
	for i := start; (step > 0 && i < end) || (step < 0 && i > end); i += step {
		out.items = append(out.items, items[i])
	}
	if _, isTuple := c.bound[0].(*tupleVal); isTuple {
		return &tupleVal{items: out.items}, nil
	}
	return c.b().madeList(out), nil
}

// dictGet is d.get(key, default=None).
func (c *opCall) dictGet(d *dictVal) (value, error) {
	if err := c.bind("self", "key", "default_value=None"); err != nil {
		return nil, err
	}
	i, known := d.find(c.bound[1])
	if !known {
		return nil, c.errf("dict key is a %s, not a string or number known at import", typeName(c.bound[1]))
	}
	if i < 0 {
		return c.bound[2], nil
	}
	return d.vals[i], nil
}

// scalarPow is a ** b of numbers known at import (aten::pow.int_float and
// the like): an int for ints with a non-negative exponent, else a float.
func scalarPow(a, b value) (value, bool) {
	x, okA := scalarOf(a)
	y, okB := scalarOf(b)
	_, intA := a.(int64)
	_, intB := b.(int64)
	if !okA || !okB {
		return nil, false
	}
	if _, t := b.(*tensorVal); t {
		return nil, false
	}
	if intA && intB && y.f >= 0 && y.f <= 64 {
		r := int64(1)
		for i := int64(0); i < int64(y.f); i++ {
			r *= int64(x.f)
		}
		return r, true
	}
	return math.Pow(x.f, y.f), true
}

// opExtend is l.extend(items) (aten::extend): an append of each item.
func opExtend(c *opCall) (value, error) {
	if err := c.bind("self", "other"); err != nil {
		return nil, err
	}
	items, ok := listItems(c.bound[1])
	if !ok {
		return nil, c.errf("extend with a %s: only lists known at import are supported", typeName(c.bound[1]))
	}
	if err := c.in.appendItems(c.bound[0], append([]value(nil), items...)); err != nil {
		return nil, c.errf("%v", err)
	}
	return noneVal{}, nil
}
