package torchscript

import (
	"github.com/modelbridge/modelbridge/internal/optable"
)

// isinstance(x, T) of scripted code (TorchScript keeps it for Union and
// Optional arguments): known at import from the kind of value x is.

func init() {
	for _, n := range []string{"isinstance", "list", "tuple", "dict"} {
		globalNames[n] = true
	}
	optable.Add(&opTable, map[string]opEntry{"isinstance": entry(opIsInstance)})
}

func opIsInstance(c *opCall) (value, error) {
	if err := c.bind("obj", "types"); err != nil {
		return nil, err
	}
	types := []value{c.bound[1]}
	if t, ok := c.bound[1].(*tupleVal); ok {
		types = t.items
	}
	for _, t := range types {
		q, ok := t.(*qualName)
		if !ok {
			return nil, c.errf("a type is a %s, not a type name", typeName(t))
		}
		is, known := isInstanceOf(c.bound[0], q.path)
		if !known {
			return nil, c.errf("isinstance of a %s and %s is not known at import", typeName(c.bound[0]), q.path)
		}
		if is {
			return true, nil
		}
	}
	return false, nil
}

// isInstanceOf reports whether v is of the type named name (list, tuple,
// dict, Tensor, int, float, bool, str; List[...] and the like by their
// container).
func isInstanceOf(v value, name string) (is, known bool) {
	switch name {
	case "list", "List":
		switch v.(type) {
		case *listVal, *runList, *appendOnlyList:
			return true, true
		}
		return false, true
	case "tuple", "Tuple":
		_, ok := v.(*tupleVal)
		return ok, true
	case "dict", "Dict":
		_, ok := v.(*dictVal)
		return ok, true
	case "Tensor":
		_, ok := v.(*tensorVal)
		return ok, true
	case "int":
		switch v.(type) {
		case int64, *dynInt:
			return true, true
		}
		return false, true
	case "float":
		switch v.(type) {
		case float64, *dynFloat:
			return true, true
		}
		return false, true
	case "bool":
		switch v.(type) {
		case bool, *dynBool:
			return true, true
		}
		return false, true
	case "str":
		_, ok := v.(string)
		return ok, true
	}
	return false, false
}
