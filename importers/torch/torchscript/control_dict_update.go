package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&opTable, map[string]opEntry{"torch.update": entry(opDictUpdate)})
}

// opDictUpdate is d.update(other): other's entries set in d in other's
// order (torchvision's detectors gather their losses so, empty in eval).
func opDictUpdate(c *opCall) (value, error) {
	if err := c.bind("self", "to_add"); err != nil {
		return nil, err
	}
	d, err := c.boundDict()
	if err != nil {
		return nil, err
	}
	other, ok := c.bound[1].(*dictVal)
	if !ok {
		return nil, c.errf("update from a %s, not a dict", typeName(c.bound[1]))
	}
	if len(other.keys) == 0 {
		return noneVal{}, nil
	}
	if !c.b().canMutateDict(d) {
		return nil, c.errf("changing a dict from outside a branch or loop inside it is not supported")
	}
	for i := range other.keys {
		if err := d.set(other.keys[i], other.vals[i]); err != nil {
			return nil, c.errf("%v", err)
		}
	}
	return noneVal{}, nil
}
