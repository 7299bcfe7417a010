package torchscript

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// opCall is one call of a torch operator with its arguments bound to the
// operator's parameter names.
type opCall struct {
	in     *evaluator
	name   string
	scope  string
	args   []value
	kwargs map[string]value
	params []string
	bound  []value
}

type opHandler func(c *opCall) (value, error)

func (c *opCall) errf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", c.name, fmt.Sprintf(format, args...))
}

func (c *opCall) b() *builder { return c.in.b }

// bind matches the arguments against a schema of "name" or "name=default"
// entries (defaults: None, True, False, ints, floats, [] or [ints]).
func (c *opCall) bind(schema ...string) error {
	if len(c.args) > len(schema) {
		return c.errf("takes at most %d arguments, %d given", len(schema), len(c.args))
	}
	c.params = make([]string, len(schema))
	c.bound = make([]value, len(schema))
	used := 0
	for i, s := range schema {
		name, dflt, hasDefault := strings.Cut(s, "=")
		c.params[i] = name
		switch {
		case i < len(c.args):
			c.bound[i] = c.args[i]
			if _, dup := c.kwargs[name]; dup {
				return c.errf("argument %s given twice", name)
			}
		case c.kwargs[name] != nil:
			c.bound[i] = c.kwargs[name]
			used++
		case hasDefault:
			c.bound[i] = parseDefault(dflt)
		default:
			return c.errf("missing argument %s", name)
		}
	}
	if used != len(c.kwargs) {
		for k := range c.kwargs {
			known := false
			for _, p := range c.params {
				known = known || p == k
			}
			if !known {
				return c.errf("unexpected keyword argument %s", k)
			}
		}
	}
	return nil
}

func parseDefault(s string) value {
	switch s {
	case "None":
		return noneVal{}
	case "True":
		return true
	case "False":
		return false
	}
	if strings.HasPrefix(s, "[") {
		l := &listVal{}
		for _, part := range strings.Split(strings.Trim(s, "[]"), ";") {
			if part != "" {
				n, _ := strconv.ParseInt(part, 10, 64)
				l.items = append(l.items, n)
			}
		}
		return l
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func (c *opCall) isNone(i int) bool {
	_, ok := c.bound[i].(noneVal)
	return ok
}

// bindInput binds the arguments to schema and returns the first one, which
// must be a tensor (the prologue of most operators).
func (c *opCall) bindInput(schema ...string) (*tensorVal, error) {
	if err := c.bind(schema...); err != nil {
		return nil, err
	}
	return c.tensor(0)
}

func (c *opCall) tensor(i int) (*tensorVal, error) {
	t, ok := c.bound[i].(*tensorVal)
	if !ok {
		return nil, c.errf("argument %s must be a Tensor, got %s", c.params[i], typeName(c.bound[i]))
	}
	return t, nil
}

// optTensor is a tensor or nil for None.
func (c *opCall) optTensor(i int) (*tensorVal, error) {
	if c.isNone(i) {
		return nil, nil
	}
	return c.tensor(i)
}

func (c *opCall) int(i int) (int64, error) {
	n, ok := toInt(c.bound[i])
	if !ok {
		return 0, c.errf("argument %s must be an int known at import, got %s", c.params[i], typeName(c.bound[i]))
	}
	return n, nil
}

func (c *opCall) float(i int) (float64, error) {
	switch x := c.bound[i].(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, c.errf("argument %s must be a number, got %s", c.params[i], typeName(c.bound[i]))
}

func (c *opCall) bool(i int) (bool, error) {
	switch x := c.bound[i].(type) {
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	}
	return false, c.errf("argument %s must be a bool, got %s", c.params[i], typeName(c.bound[i]))
}

// ints reads an int list; a single int (or a one-element list) is repeated
// n times when n > 0, as torch's IntList[n] arguments allow.
func (c *opCall) ints(i, n int) ([]int64, error) {
	var items []value
	switch x := c.bound[i].(type) {
	case *listVal:
		items = x.items
	case *tupleVal:
		items = x.items
	default:
		if v, ok := toInt(x); ok {
			items = []value{v}
		} else {
			return nil, c.errf("argument %s must be a list of ints, got %s", c.params[i], typeName(c.bound[i]))
		}
	}
	out := make([]int64, len(items))
	for k, it := range items {
		v, ok := toInt(it)
		if !ok {
			return nil, c.errf("argument %s: element %d is a %s, not an int known at import (give --input-shape so that sizes are static)", c.params[i], k, typeName(it))
		}
		out[k] = v
	}
	if n > 0 && len(out) == 1 && n > 1 {
		v := out[0]
		out = make([]int64, n)
		for k := range out {
			out[k] = v
		}
	}
	if n > 0 && len(out) != n {
		return nil, c.errf("argument %s has %d values, want %d", c.params[i], len(out), n)
	}
	return out, nil
}

// toInt reads an int known at import: a Python int, or an integer scalar
// tensor whose value is known (int(NumToTensor(size))).
func toInt(v value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case *tensorVal:
		if x.konst != nil {
			return scalarInt64(x.konst)
		}
	}
	return 0, false
}

// shapeOf is a tensor's static shape, or an error that says how to get one.
func (c *opCall) shapeOf(t *tensorVal, what string) ([]int64, error) {
	s, ok := c.b().info(t).StaticShape()
	if !ok {
		return nil, c.errf("the shape of %s is not known at import; give the input shape (--input-shape NAME=D1,D2,...)", what)
	}
	return s, nil
}

// rankOf is a tensor's rank, or an error.
func (c *opCall) rankOf(t *tensorVal, what string) (int, error) {
	vi := c.b().info(t)
	if !vi.RankKnown {
		return 0, c.errf("the rank of %s is not known at import; give the input shape (--input-shape NAME=D1,D2,...)", what)
	}
	return len(vi.Shape), nil
}

// axis normalizes a possibly negative axis against rank.
func (c *opCall) axis(a int64, rank int) (int64, error) {
	if a < 0 {
		a += int64(rank)
	}
	if a < 0 || a >= int64(rank) {
		return 0, c.errf("dimension %d is out of range for a rank-%d tensor", a, rank)
	}
	return a, nil
}

// scalarTensor makes a rank-0 constant of dtype like.
func scalarTensor(v float64, dt canon.DType) *canon.Tensor {
	switch dt {
	case canon.Int64:
		return canon.NewInt64Tensor("", []int64{}, []int64{int64(v)})
	default:
		return canon.NewFloat32Tensor("", []int64{}, []float32{float32(v)})
	}
}

func isFinite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }
