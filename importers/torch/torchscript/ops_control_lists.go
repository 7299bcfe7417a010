package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Scripting builtins on lists and numbers. A list is a value known at
// import: changing one inside a branch or loop body would make it a
// run-time list, which needs sequence values (refused, naming the op).

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.Delete":            entry(opListDelete),
		"torch.insert":            entry(opListInsert),
		"torch._set_item":         entry(opListSetItem),
		"torch.pop":               entry(opListPop),
		"torch.list":              entry(opListCopy),
		"torch.floordiv":          entry(opIntFloorDiv, divideKinds...),
		"torch.is_floating_point": entry(opIsFloatingPoint),
		"torch.is_pinned":         entry(opIsPinned),
		"torch.item":              entry(opItem, "Reshape", "Cast"),
	})
}

// staticList is argument 0 as a list the call may change.
func (c *opCall) staticList() (*listVal, error) {
	l, ok := c.bound[0].(*listVal)
	if !ok {
		return nil, c.errf("argument is a %s, not a list known at import", typeName(c.bound[0]))
	}
	if !c.b().canMutate(l) {
		return nil, c.errf("changing a list from outside a branch or loop inside it (other than by append) makes it a run-time list: that needs sequence values, which the canonical IR does not have yet (trace the model, or export it to ONNX)")
	}
	return l, nil
}

// listIndex is a Python index into n items (negative counts from the end).
func (c *opCall) listIndex(v value, n int) (int, error) {
	i, ok := v.(int64)
	if !ok {
		return 0, c.errf("list index is a %s, not an int known at import", typeName(v))
	}
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, c.errf("list index %d out of range for %d items", v, n)
	}
	return int(i), nil
}

func opListDelete(c *opCall) (value, error) {
	if err := c.bind("list", "idx"); err != nil {
		return nil, err
	}
	l, err := c.staticList()
	if err != nil {
		return nil, err
	}
	i, err := c.listIndex(c.bound[1], len(l.items))
	if err != nil {
		return nil, err
	}
	l.items = append(l.items[:i:i], l.items[i+1:]...)
	return noneVal{}, nil
}

func opListInsert(c *opCall) (value, error) {
	if err := c.bind("list", "idx", "el"); err != nil {
		return nil, err
	}
	l, err := c.staticList()
	if err != nil {
		return nil, err
	}
	i, ok := c.bound[1].(int64)
	if !ok {
		return nil, c.errf("insert index is a %s, not an int known at import", typeName(c.bound[1]))
	}
	n := int64(len(l.items))
	if i < 0 { // Python clamps an insert position into the list
		i = max(i+n, 0)
	}
	i = min(i, n)
	items := append([]value(nil), l.items[:i]...)
	items = append(items, c.bound[2])
	l.items = append(items, l.items[i:]...)
	return noneVal{}, nil
}

func opListSetItem(c *opCall) (value, error) {
	if err := c.bind("list", "idx", "el"); err != nil {
		return nil, err
	}
	if d, ok := c.bound[0].(*dictVal); ok {
		return c.dictSetItem(d, c.bound[1], c.bound[2])
	}
	l, err := c.staticList()
	if err != nil {
		return nil, err
	}
	i, err := c.listIndex(c.bound[1], len(l.items))
	if err != nil {
		return nil, err
	}
	l.items[i] = c.bound[2]
	return l, nil
}

func opListPop(c *opCall) (value, error) {
	if err := c.bind("list", "idx=-1"); err != nil {
		return nil, err
	}
	l, err := c.staticList()
	if err != nil {
		return nil, err
	}
	idx := c.bound[1]
	if idx == nil {
		idx = int64(-1)
	}
	i, err := c.listIndex(idx, len(l.items))
	if err != nil {
		return nil, err
	}
	v := l.items[i]
	l.items = append(l.items[:i:i], l.items[i+1:]...)
	return v, nil
}

func opListCopy(c *opCall) (value, error) {
	if err := c.bind("l"); err != nil {
		return nil, err
	}
	items, ok := listItems(c.bound[0])
	if !ok {
		return nil, c.errf("list() of a %s", typeName(c.bound[0]))
	}
	return c.b().madeList(&listVal{items: append([]value(nil), items...)}), nil
}

// opIntFloorDiv is int // int (Python's floor division) on ints known at
// import.
func opIntFloorDiv(c *opCall) (value, error) {
	if err := c.bind("a", "b"); err != nil {
		return nil, err
	}
	a, okA := c.bound[0].(int64)
	b, okB := c.bound[1].(int64)
	if v, done, err := runTimeFloorDiv(c); done {
		return v, err
	}
	if !okA || !okB {
		return nil, c.errf("int // int on a %s and a %s: only ints known at import are supported (give the input shape)", typeName(c.bound[0]), typeName(c.bound[1]))
	}
	if b == 0 {
		return nil, c.errf("integer division by zero")
	}
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q, nil
}

func opIsFloatingPoint(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	dt := c.b().info(x).DType
	if dt == canon.Undefined {
		return nil, c.errf("the dtype of %s is not known at import", x.name)
	}
	return dt.IsFloat(), nil
}

// opIsPinned: an imported model's tensors are never in pinned memory.
func opIsPinned(c *opCall) (value, error) {
	if err := c.bind("x", "device=None"); err != nil {
		return nil, err
	}
	return false, nil
}

// opItem is x.item(): a number known at import, or a run-time int or bool
// for an integer or bool tensor.
func opItem(c *opCall) (value, error) {
	if err := c.bind("x"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	if s, ok := scalarOf(x); ok {
		return s.value(), nil
	}
	if k, ok := c.b().importTimeValue(x); ok && k.NumElements() == 1 {
		// Computed from constants only (sizes known at import).
		if s, ok := scalarOf(&tensorVal{konst: k}); ok {
			switch {
			case k.DType == canon.Bool:
				return s.f != 0, nil
			case s.isInt:
				return int64(s.f), nil
			}
			return s.f, nil
		}
	}
	dt := c.b().info(x).DType
	switch {
	case dt == canon.Bool:
		return c.b().runTimeBool(c.scope, x)
	case dt.IsFloat():
		return c.b().runTimeFloat(c.scope, x)
	case dt == canon.Undefined:
		return nil, c.errf("item() of a tensor whose dtype is not known at import: the importer cannot tell whether it is an int, a float or a bool")
	}
	return c.b().runTimeInt(c.scope, x)
}
