package canon

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// Equal reports nil when a and b are the same model: same inputs and
// outputs (names, dtypes, dims including symbolic names), the same nodes in
// the same order (name, kind, attributes, inputs, outputs) and the same
// initializers in the same order (name, dtype, shape, layout, data bytes).
// Otherwise the error describes the first difference. Graph name and
// metadata are not compared: they describe the file, not the model.
// Attributes compare nil and empty lists as equal, floats by value with NaN
// equal to NaN, and Constant values as tensors.
func Equal(a, b *Graph) error {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return errors.New("one graph is nil")
	}
	if err := equalValues("input", a.Inputs, b.Inputs); err != nil {
		return err
	}
	if err := equalValues("output", a.Outputs, b.Outputs); err != nil {
		return err
	}
	if len(a.Nodes) != len(b.Nodes) {
		return fmt.Errorf("%d nodes vs %d", len(a.Nodes), len(b.Nodes))
	}
	for i := range a.Nodes {
		if err := equalNode(a.Nodes[i], b.Nodes[i]); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
	}
	if len(a.Initializers) != len(b.Initializers) {
		return fmt.Errorf("%d initializers vs %d", len(a.Initializers), len(b.Initializers))
	}
	for i := range a.Initializers {
		if err := equalTensor(a.Initializers[i], b.Initializers[i]); err != nil {
			return fmt.Errorf("initializer %d: %w", i, err)
		}
	}
	return nil
}

func equalValues(what string, a, b []ValueInfo) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d %ss vs %d", len(a), what, len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		switch {
		case x.Name != y.Name:
			return fmt.Errorf("%s %d: name %q vs %q", what, i, x.Name, y.Name)
		case x.DType != y.DType:
			return fmt.Errorf("%s %q: dtype %s vs %s", what, x.Name, x.DType, y.DType)
		case x.Kind != y.Kind:
			return fmt.Errorf("%s %q: a %s vs a %s", what, x.Name, x.Kind, y.Kind)
		case x.RankKnown != y.RankKnown:
			return fmt.Errorf("%s %q: shape %s vs %s", what, x.Name, fmtShape(x), fmtShape(y))
		case x.RankKnown && !equalDims(x.Shape, y.Shape):
			return fmt.Errorf("%s %q: shape %s vs %s", what, x.Name, fmtShape(x), fmtShape(y))
		}
	}
	return nil
}

func equalDims(a, b []Dim) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Known() != y.Known() || (x.Known() && x.Size != y.Size) || x.Param != y.Param {
			return false
		}
	}
	return true
}

func equalNode(a, b *Node) error {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return errors.New("one node is nil")
	}
	if a.Name != b.Name {
		return fmt.Errorf("name %q vs %q", a.Name, b.Name)
	}
	ka, kb := opKind(a.Op), opKind(b.Op)
	if ka != kb || reflect.TypeOf(a.Op) != reflect.TypeOf(b.Op) {
		return fmt.Errorf("%q: kind %s vs %s", a.Name, ka, kb)
	}
	if !slices.Equal(a.Inputs, b.Inputs) {
		return fmt.Errorf("%q (%s): inputs %q vs %q", a.Name, ka, a.Inputs, b.Inputs)
	}
	if !slices.Equal(a.Outputs, b.Outputs) {
		return fmt.Errorf("%q (%s): outputs %q vs %q", a.Name, ka, a.Outputs, b.Outputs)
	}
	if isNilOp(a.Op) || isNilOp(b.Op) {
		if isNilOp(a.Op) != isNilOp(b.Op) {
			return fmt.Errorf("%q: one node has no op", a.Name)
		}
		return nil
	}
	va, vb := reflect.ValueOf(a.Op), reflect.ValueOf(b.Op)
	if va.Kind() == reflect.Pointer {
		va, vb = va.Elem(), vb.Elem()
	}
	if field, err := equalAttrs(va, vb, ""); err != nil {
		return fmt.Errorf("%q (%s): attribute %s: %w", a.Name, ka, field, err)
	}
	return nil
}

var tensorPtrType = reflect.TypeOf((*Tensor)(nil))

// equalAttrs compares two attribute values of the same type. On a
// difference it returns the field path and an error showing both values.
func equalAttrs(a, b reflect.Value, path string) (string, error) {
	diff := func() (string, error) {
		return path, fmt.Errorf("%v vs %v", fmtAttr(a), fmtAttr(b))
	}
	switch a.Kind() {
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			f := a.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			if fp, err := equalAttrs(a.Field(i), b.Field(i), p); err != nil {
				return fp, err
			}
		}
		return "", nil
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() { // a nil and an empty slice are both length 0
			return diff()
		}
		for i := 0; i < a.Len(); i++ {
			if _, err := equalAttrs(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return diff()
			}
		}
		return "", nil
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return diff()
			}
			return "", nil
		}
		if a.Type() == tensorPtrType {
			if err := equalTensor(a.Interface().(*Tensor), b.Interface().(*Tensor)); err != nil {
				return path, err
			}
			return "", nil
		}
		return equalAttrs(a.Elem(), b.Elem(), path)
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			return diff()
		}
		return "", nil
	case reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return diff()
		}
		return "", nil
	}
	if a.Comparable() && a.Equal(b) {
		return "", nil
	}
	return diff()
}

func fmtAttr(v reflect.Value) any {
	if v.Kind() == reflect.Slice && v.IsNil() {
		return "[]"
	}
	if v.CanInterface() {
		return v.Interface()
	}
	return v
}

// equalTensor compares name, dtype, shape, layout and data bytes.
func equalTensor(a, b *Tensor) error {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return errors.New("one tensor is nil")
	}
	switch {
	case a.Name != b.Name:
		return fmt.Errorf("name %q vs %q", a.Name, b.Name)
	case a.DType != b.DType:
		return fmt.Errorf("tensor %q: dtype %s vs %s", a.Name, a.DType, b.DType)
	case !slices.Equal(a.Shape, b.Shape):
		return fmt.Errorf("tensor %q: shape %v vs %v", a.Name, a.Shape, b.Shape)
	case a.Layout != b.Layout:
		return fmt.Errorf("tensor %q: layout %q vs %q", a.Name, a.Layout, b.Layout)
	case !bytes.Equal(a.Data, b.Data):
		if len(a.Data) != len(b.Data) {
			return fmt.Errorf("tensor %q: %d data bytes vs %d", a.Name, len(a.Data), len(b.Data))
		}
		i := 0
		for a.Data[i] == b.Data[i] {
			i++
		}
		sz := max(a.DType.Size(), 1)
		return fmt.Errorf("tensor %q: data differs at element %d (byte %d)", a.Name, i/sz, i)
	case !slices.Equal(a.Strings, b.Strings):
		return fmt.Errorf("tensor %q: strings differ", a.Name)
	}
	return nil
}
