package torchscript

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/internal/pickle"
)

// Objects of scripted classes that are not modules (torchvision's
// ImageList): Class.__new__(Class) makes an object without attributes,
// its __init__ sets them (self.x = v), and methods and attribute reads
// work as on modules. An attribute assignment on a module (a flag such as
// self._has_warned = True) changes what later reads see during the import.

// newObject is Class.__new__(Class): path is "CLASS.__new__".
func (in *evaluator) newObject(path string, args []value) (value, error) {
	cls := strings.TrimSuffix(path, ".__new__")
	if len(args) != 1 {
		return nil, fmt.Errorf("%s takes the class, %d arguments given", path, len(args))
	}
	if q, ok := args[0].(*qualName); !ok || q.path != cls {
		return nil, fmt.Errorf("%s of a %s: only Class.__new__(Class) is supported", path, typeName(args[0]))
	}
	if _, err := in.src.class(cls); err != nil {
		return nil, err
	}
	module, name := split(cls)
	obj := &moduleVal{class: &pickle.Global{Module: module, Name: name}, attrs: pickle.NewDict(), cache: map[string]value{}, conv: newConverter()}
	in.b.madeObject(obj)
	return obj, nil
}

func (b *builder) madeObject(m *moduleVal) {
	if b.subDepth > 0 {
		if b.objDepth == nil {
			b.objDepth = map[*moduleVal]int{}
		}
		b.objDepth[m] = b.subDepth
	}
}

// setAttr is obj.name = v.
func (in *evaluator) setAttr(f *frame, target *attrExpr, v value) error {
	base, err := in.eval(f, target.x)
	if err != nil {
		return err
	}
	m, ok := base.(*moduleVal)
	if !ok {
		return fmt.Errorf("assignment to an attribute of a %s is not supported", typeName(base))
	}
	b := in.b
	if b.subDepth > 0 && (b.objDepth == nil || b.objDepth[m] != b.subDepth) {
		return fmt.Errorf("assignment to attribute %s of %s inside a branch or loop whose path only a run tells: the object's state would differ between runs, which the graph does not carry", target.name, m.qualifiedClass())
	}
	m.cache[target.name] = v
	return nil
}
