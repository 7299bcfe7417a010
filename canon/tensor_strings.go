package canon

import "fmt"

// NewStringTensor builds a String tensor; shape nil means a 1-D tensor of
// len(v).
func NewStringTensor(name string, shape []int64, v []string) *Tensor {
	if shape == nil {
		shape = []int64{int64(len(v))}
	}
	return &Tensor{Name: name, DType: String, Shape: shape, Strings: v}
}

// checkStrings is CheckData for a String tensor: one string per element
// and no byte data.
func (t *Tensor) checkStrings() error {
	n := t.NumElements()
	if int64(len(t.Strings)) != n {
		return fmt.Errorf("tensor %q: string%v needs %d strings, has %d", t.Name, t.Shape, n, len(t.Strings))
	}
	if len(t.Data) != 0 {
		return fmt.Errorf("tensor %q: a string tensor holds its elements as strings, not %d bytes of data", t.Name, len(t.Data))
	}
	return nil
}

// StringBytes is the total length of a String tensor's elements, the
// memory its content occupies beyond the string headers.
func (t *Tensor) StringBytes() int64 {
	var n int64
	for _, s := range t.Strings {
		n += int64(len(s))
	}
	return n
}

// StringValue names a value of g that holds strings (a graph input or
// output, an initializer, or, once g is inferred, any node's output), or
// returns "" when there is none. Formats without string tensors refuse a
// graph by it.
func StringValue(g *Graph) string {
	for _, v := range g.Inputs {
		if v.DType == String {
			return v.Name
		}
	}
	for _, t := range g.Initializers {
		if t.DType == String {
			return t.Name
		}
	}
	for _, v := range g.Outputs {
		if v.DType == String {
			return v.Name
		}
	}
	if g.Values != nil {
		for _, n := range g.Nodes {
			for _, o := range n.Outputs {
				if v, ok := g.Values.Lookup(o); ok && o != "" && v.DType == String {
					return o
				}
			}
		}
	}
	return ""
}
