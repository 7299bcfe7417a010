package torchscript

import (
	"fmt"
)

// maxWeightDepth bounds the module tree walked for a weights-only import.
const maxWeightDepth = 200

// readWeightsOnly turns an archive without a forward method (torch.jit.save
// of a module that only holds parameters) into a graph of initializers
// named by their attribute paths, as a state dict would be read.
func readWeightsOnly(b *builder, root *moduleVal) error {
	seen := map[*tensorRef]bool{}
	// walked holds the modules (by their attribute dicts) and lists
	// already walked: a pickle can share one object many times through
	// its memo, and walking every path would take exponential time.
	walked := map[any]bool{}
	var walk func(v value, depth int) error
	walk = func(v value, depth int) error {
		if depth > maxWeightDepth {
			return fmt.Errorf("module tree nests more than %d levels", maxWeightDepth)
		}
		var key any = v
		if m, ok := v.(*moduleVal); ok {
			key = m.attrs
		}
		switch v.(type) {
		case *moduleVal, *listVal, *tupleVal:
			if walked[key] {
				return nil
			}
			walked[key] = true
		}
		switch x := v.(type) {
		case *tensorVal:
			if x.ref == nil || seen[x.ref] {
				return nil
			}
			seen[x.ref] = true
			_, err := b.valueName(x)
			return err
		case *moduleVal:
			for _, k := range x.attrs.Keys {
				name, ok := k.(string)
				if !ok {
					continue
				}
				child, _, err := x.attr(name)
				if err != nil {
					return err
				}
				if err := walk(child, depth+1); err != nil {
					return err
				}
			}
		case *listVal:
			for _, it := range x.items {
				if err := walk(it, depth+1); err != nil {
					return err
				}
			}
		case *tupleVal:
			for _, it := range x.items {
				if err := walk(it, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(root, 0)
}
