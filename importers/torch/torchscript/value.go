package torchscript

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// Values the evaluator works with:
//
//	*tensorVal    a tensor: a graph value, a weight, or a known constant
//	*moduleVal    a scripted module object from data.pkl
//	int64, float64, bool, string, noneVal
//	*listVal, *tupleVal
//	*qualName     a dotted name not bound to data (torch.relu, __torch__.X)
//	*boundMethod  a method of a module object, ready to be called
//	*constantsVal the CONSTANTS table
type value any

type noneVal struct{}

type listVal struct{ items []value }

type tupleVal struct{ items []value }

type qualName struct{ path string }

type constantsVal struct{ items []value }

// tensorVal is a tensor. Exactly one of these holds:
//   - name != "": a value of the graph being built (info is its type);
//   - ref != nil: a weight from data.pkl, added as an initializer on first use;
//   - konst != nil: a constant known at import (from constants.pkl or
//     computed from static shapes), added as an initializer on first use.
//
// In-place ops (relu_) overwrite the struct, so every alias sees the result.
type tensorVal struct {
	name  string
	info  canon.ValueInfo
	ref   *tensorRef
	path  string // weight path ("features.0.weight") for ref
	konst *canon.Tensor
}

// moduleVal is an object of a scripted class: its attributes come from
// data.pkl, its methods from the class's code/ source.
type moduleVal struct {
	class *pickle.Global
	path  string // attribute path from the root ("" for the root)
	attrs *pickle.Dict
	cache map[string]value
	conv  *converter // converts attributes on first use
}

// qualifiedClass is the class's full name, e.g. __torch__.torch.nn.modules.conv.Conv2d.
func (m *moduleVal) qualifiedClass() string { return m.class.Module + "." + m.class.Name }

type boundMethod struct {
	self *moduleVal
	fn   *funcDef
}

// typeName names a value's kind for error messages.
func typeName(v value) string {
	switch x := v.(type) {
	case *tensorVal:
		return "Tensor"
	case *moduleVal:
		return "module " + x.qualifiedClass()
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case string:
		return "str"
	case noneVal:
		return "None"
	case *listVal:
		return "list"
	case *runList:
		return "list built by a loop (its length is known only at run time: read it with torch.stack, torch.cat, len or an index)"
	case *appendOnlyList:
		return "list from outside the branch or loop (inside it the importer follows appends only)"
	case *tupleVal:
		return "tuple"
	case *qualName:
		return x.path
	case *boundMethod:
		return "method " + x.fn.name
	case *constantsVal:
		return "CONSTANTS"
	case *dynInt:
		return "int (known at run time)"
	case *dynFloat:
		return "float (known at run time)"
	case *quantizedVal:
		return "quantized Tensor (read by int_repr, dequantize and the quantized layers and operators)"
	case *perChannelQuantizedVal:
		return "per-channel quantized Tensor (read by int_repr and dequantize only: PyTorch's quantized operators take per-tensor quantized activations)"
	}
	return fmt.Sprintf("%T", v)
}

// maxValueNesting bounds how deep the lists and tuples of a module's
// attributes and constants nest; a list that contains itself (which a
// pickle can build) is refused when it reaches it.
const maxValueNesting = 100

// converter turns decoded pickle values into evaluator values. A list or
// tuple that the pickle shares through its memo (a few bytes for each
// reference) is converted once, so that nesting shared lists cannot make
// the conversion exponential.
type converter struct {
	done map[any]value
}

func newConverter() *converter { return &converter{done: map[any]value{}} }

// fromPickle converts a decoded attribute value of a module object.
func (cv *converter) fromPickle(v pickle.Value, path string) (value, error) {
	return cv.convert(v, path, 0)
}

func (cv *converter) convert(v pickle.Value, path string, depth int) (value, error) {
	switch x := v.(type) {
	case pickle.None:
		return noneVal{}, nil
	case bool, int64, float64, string:
		return x, nil
	case *tensorRef:
		return &tensorVal{ref: x, path: path}, nil
	case *packedParams:
		return x, nil
	case *pickle.Object:
		if v, ok, err := cv.quantizedObject(x, path); ok {
			return v, err
		}
		if !strings.HasPrefix(x.Class.Module, "__torch__") {
			return nil, fmt.Errorf("attribute %s is an object of %s, which is not a scripted class", path, x.Class)
		}
		d, _ := x.State.(*pickle.Dict)
		if d == nil {
			d = pickle.NewDict()
		}
		return &moduleVal{class: x.Class, path: path, attrs: d, cache: map[string]value{}, conv: cv}, nil
	case *pickle.List, *pickle.Tuple:
		if done, ok := cv.done[v]; ok {
			return done, nil
		}
		if depth >= maxValueNesting {
			return nil, fmt.Errorf("attribute %s: lists and tuples nested more than %d deep (a list that contains itself?)", path, maxValueNesting)
		}
		var out value
		var err error
		if l, ok := x.(*pickle.List); ok {
			out, err = cv.convertItems(l.Items, path, depth, func(items []value) value { return &listVal{items: items} })
		} else {
			out, err = cv.convertItems(x.(*pickle.Tuple).Items, path, depth, func(items []value) value { return &tupleVal{items: items} })
		}
		if err != nil {
			return nil, err
		}
		cv.done[v] = out
		return out, nil
	case *pickle.Dict:
		return cv.convertDict(x, path, depth)
	}
	return nil, fmt.Errorf("attribute %s holds a %s, which this importer does not use", path, pickle.TypeName(v))
}

func (cv *converter) convertItems(in []pickle.Value, path string, depth int, mk func([]value) value) (value, error) {
	out := make([]value, len(in))
	for i, it := range in {
		v, err := cv.convert(it, fmt.Sprintf("%s.%d", path, i), depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return mk(out), nil
}

// attr reads a module attribute (cached, so a tensor read twice is one value).
func (m *moduleVal) attr(name string) (value, bool, error) {
	if v, ok := m.cache[name]; ok {
		return v, true, nil
	}
	raw, ok := m.attrs.GetString(name)
	if !ok {
		return nil, false, nil
	}
	p := name
	if m.path != "" {
		p = m.path + "." + name
	}
	v, err := m.conv.fromPickle(raw, p)
	if err != nil {
		return nil, true, err
	}
	m.cache[name] = v
	return v, true, nil
}
