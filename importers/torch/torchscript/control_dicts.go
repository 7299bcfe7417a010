package torchscript

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/internal/pickle"

	"github.com/modelbridge/modelbridge/internal/optable"
)

// Dicts of scripted code (Dict[str, Tensor] and the like): values known at
// import whose keys are strings, ints, floats or bools known at import and
// whose entries keep their insertion order, as Python's do. The values may
// be anything, tensors computed at run time included. Like a list, a dict
// made outside a branch or loop body is not changed inside it.

// dictVal is a dict: keys[i] maps to vals[i].
type dictVal struct {
	keys []value
	vals []value
}

// find is the position of key k, or -1; known is false when k is not a
// key the importer can compare (a tensor, or an int known only at run
// time).
func (d *dictVal) find(k value) (at int, known bool) {
	for i, have := range d.keys {
		eq, ok := sameScalar(have, k)
		if !ok {
			return -1, false
		}
		if eq {
			return i, true
		}
	}
	if _, ok := k.(string); ok {
		return -1, true
	}
	if _, ok := scalarOf(k); ok {
		if _, dyn := k.(*dynInt); !dyn {
			if _, t := k.(*tensorVal); !t {
				return -1, true
			}
		}
	}
	return -1, false
}

// get is d[k].
func (d *dictVal) get(k value) (value, error) {
	i, known := d.find(k)
	if !known {
		return nil, fmt.Errorf("dict key is a %s, not a string or number known at import", typeName(k))
	}
	if i < 0 {
		return nil, fmt.Errorf("dict has no key %v (KeyError)", k)
	}
	return d.vals[i], nil
}

// set is d[k] = v.
func (d *dictVal) set(k, v value) error {
	i, known := d.find(k)
	if !known {
		return fmt.Errorf("dict key is a %s, not a string or number known at import", typeName(k))
	}
	if i < 0 {
		d.keys = append(d.keys, k)
		d.vals = append(d.vals, v)
		return nil
	}
	d.vals[i] = v
	return nil
}

// dictDepth records at which body depth each dict was made: only code at
// that depth may change it (see canMutate for lists).
func (b *builder) madeDict(d *dictVal) *dictVal {
	if b.subDepth > 0 {
		if b.dictDepth == nil {
			b.dictDepth = map[*dictVal]int{}
		}
		b.dictDepth[d] = b.subDepth
	}
	return d
}

func (b *builder) canMutateDict(d *dictVal) bool {
	return b.subDepth == 0 || (b.dictDepth != nil && b.dictDepth[d] == b.subDepth)
}

// dictLiteral parses {k: v, ...} after its "{".
func (p *parser) dictLiteral() (expr, error) {
	d := &dictExpr{line: p.next().line}
	for !p.atOp("}") {
		k, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(":"); err != nil {
			return nil, err
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.atName("for") {
			return nil, p.errf("dict comprehensions are not supported")
		}
		d.keys, d.values = append(d.keys, k), append(d.values, v)
		if !p.atOp(",") {
			break
		}
		p.pos++
	}
	return d, p.expectOp("}")
}

func (in *evaluator) evalDict(f *frame, x *dictExpr) (value, error) {
	d := &dictVal{}
	for i := range x.keys {
		k, err := in.eval(f, x.keys[i])
		if err != nil {
			return nil, err
		}
		v, err := in.eval(f, x.values[i])
		if err != nil {
			return nil, err
		}
		if err := d.set(k, v); err != nil {
			return nil, err
		}
	}
	return in.b.madeDict(d), nil
}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.values": entry(opDictValues),
		"torch.keys":   entry(opDictKeys),
		"torch.items":  entry(opDictItems),
		"torch.dict":   entry(opDictCopy),
		"str":          entry(opStr),
		"torch.get":    entry(opDictGetOnly),
	})
}

// boundDict is argument 0 as a dict.
func (c *opCall) boundDict() (*dictVal, error) {
	d, ok := c.bound[0].(*dictVal)
	if !ok {
		return nil, c.errf("argument is a %s, not a dict", typeName(c.bound[0]))
	}
	return d, nil
}

func opDictValues(c *opCall) (value, error) {
	if err := c.bind("self"); err != nil {
		return nil, err
	}
	d, err := c.boundDict()
	if err != nil {
		return nil, err
	}
	return c.b().madeList(&listVal{items: append([]value(nil), d.vals...)}), nil
}

func opDictKeys(c *opCall) (value, error) {
	if err := c.bind("self"); err != nil {
		return nil, err
	}
	d, err := c.boundDict()
	if err != nil {
		return nil, err
	}
	return c.b().madeList(&listVal{items: append([]value(nil), d.keys...)}), nil
}

func opDictItems(c *opCall) (value, error) {
	if err := c.bind("self"); err != nil {
		return nil, err
	}
	d, err := c.boundDict()
	if err != nil {
		return nil, err
	}
	l := &listVal{}
	for i := range d.keys {
		l.items = append(l.items, &tupleVal{items: []value{d.keys[i], d.vals[i]}})
	}
	return c.b().madeList(l), nil
}

func opDictCopy(c *opCall) (value, error) {
	if len(c.args) == 0 && len(c.kwargs) == 0 {
		return c.b().madeDict(&dictVal{}), nil
	}
	if err := c.bind("self"); err != nil {
		return nil, err
	}
	if pairs, ok := listItems(c.bound[0]); ok {
		// dict(list of (key, value) pairs)
		d := &dictVal{}
		for _, p := range pairs {
			kv, ok := p.(*tupleVal)
			if !ok || len(kv.items) != 2 {
				return nil, c.errf("an item is a %s, not a (key, value) pair", typeName(p))
			}
			if err := d.set(kv.items[0], kv.items[1]); err != nil {
				return nil, c.errf("%v", err)
			}
		}
		return c.b().madeDict(d), nil
	}
	d, err := c.boundDict()
	if err != nil {
		return nil, err
	}
	return c.b().madeDict(&dictVal{keys: append([]value(nil), d.keys...), vals: append([]value(nil), d.vals...)}), nil
}

// dictSetItem is d[k] = v (aten::_set_item on a dict).
func (c *opCall) dictSetItem(d *dictVal, k, v value) (value, error) {
	if !c.b().canMutateDict(d) {
		return nil, c.errf("changing a dict from outside a branch or loop inside it makes it a run-time dict, which the canonical IR does not have (trace the model, or export it to ONNX)")
	}
	if err := d.set(k, v); err != nil {
		return nil, c.errf("%v", err)
	}
	return noneVal{}, nil
}

// opStr is str(v) of a number, bool or string known at import.
func opStr(c *opCall) (value, error) {
	if err := c.bind("v"); err != nil {
		return nil, err
	}
	switch v := c.bound[0].(type) {
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case bool:
		if v {
			return "True", nil
		}
		return "False", nil
	}
	return nil, c.errf("str() of a %s: only ints, bools and strings known at import are supported", typeName(c.bound[0]))
}

// convertDict converts a dict attribute of a module (a scripted module's
// Dict[str, str] such as IntermediateLayerGetter's return_layers).
func (cv *converter) convertDict(x *pickle.Dict, path string, depth int) (value, error) {
	if done, ok := cv.done[x]; ok {
		return done, nil
	}
	if depth >= maxValueNesting {
		return nil, fmt.Errorf("attribute %s: containers nested more than %d deep", path, maxValueNesting)
	}
	d := &dictVal{}
	for i := range x.Keys {
		k, err := cv.convert(x.Keys[i], path, depth+1)
		if err != nil {
			return nil, err
		}
		v, err := cv.convert(x.Values[i], fmt.Sprintf("%s.%v", path, k), depth+1)
		if err != nil {
			return nil, err
		}
		if err := d.set(k, v); err != nil {
			return nil, fmt.Errorf("attribute %s: %v", path, err)
		}
	}
	cv.done[x] = d
	return d, nil
}

// opDictGetOnly is d.get(key, default) reached with something other than
// a dict (containerCall serves dicts).
func opDictGetOnly(c *opCall) (value, error) {
	if len(c.args) == 0 {
		return nil, c.errf("needs the dict")
	}
	return nil, c.errf("get of a %s: only dicts have get", typeName(c.args[0]))
}
