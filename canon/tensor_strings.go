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
