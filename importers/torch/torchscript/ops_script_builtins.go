package torchscript

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/internal/optable"
)

// uninitialized(T) is what scripted code assigns on a path that raises
// (TorchScript's prim::Uninitialized): a value no live path reads. It is
// kept as a value of its own, so that a read names it instead of taking it
// for None.
type uninitVal struct{}

func init() {
	globalNames["uninitialized"] = true
	optable.Add(&opTable, map[string]opEntry{
		"uninitialized":      entry(opUninitialized),
		"torch.__contains__": entry(opContains),
		"torch.format":       entry(opFormat),
	})
}

func opUninitialized(c *opCall) (value, error) {
	if err := c.bind("type"); err != nil {
		return nil, err
	}
	return uninitVal{}, nil
}

// opContains: x in l (aten::__contains__) for a list, or dict keys, known at
// import and an item that is a string, number or bool known at import.
func opContains(c *opCall) (value, error) {
	if err := c.bind("self", "key"); err != nil {
		return nil, err
	}
	items, ok := listItems(c.bound[0])
	if d, isDict := c.bound[0].(*dictVal); isDict {
		items, ok = d.keys, true
	}
	if !ok {
		return nil, c.errf("membership in a %s is not known at import", typeName(c.bound[0]))
	}
	key := c.bound[1]
	for _, it := range items {
		eq, known := sameScalar(it, key)
		if !known {
			return nil, c.errf("membership of a %s in a list holding a %s is not known at import", typeName(key), typeName(it))
		}
		if eq {
			return true, nil
		}
	}
	return false, nil
}

// sameScalar compares two strings, numbers or bools known at import.
func sameScalar(a, b value) (eq, known bool) {
	if sa, ok := a.(string); ok {
		sb, ok := b.(string)
		return ok && sa == sb, ok
	}
	if _, ok := a.(string); ok {
		return false, true
	}
	if _, ok := b.(string); ok {
		return false, true
	}
	x, okA := scalarOf(a)
	y, okB := scalarOf(b)
	if !okA || !okB {
		return false, false
	}
	return x.f == y.f, true
}

// opFormat: "...{}...".format(args) (aten::format), which scripted code
// builds its exception messages with: each {} takes the next argument.
func opFormat(c *opCall) (value, error) {
	if len(c.args) == 0 {
		return nil, c.errf("needs the format string")
	}
	f, ok := c.args[0].(string)
	if !ok {
		return nil, c.errf("the format is a %s, not a string", typeName(c.args[0]))
	}
	var b strings.Builder
	rest := c.args[1:]
	for {
		i := strings.Index(f, "{}")
		if i < 0 {
			b.WriteString(f)
			break
		}
		b.WriteString(f[:i])
		f = f[i+2:]
		if len(rest) == 0 {
			b.WriteString("{}")
			continue
		}
		switch v := rest[0].(type) {
		case string, int64, float64, bool:
			fmt.Fprint(&b, v)
		default:
			b.WriteString("<" + typeName(v) + ">")
		}
		rest = rest[1:]
	}
	return b.String(), nil
}
