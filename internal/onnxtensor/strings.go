package onnxtensor

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// stringTensor fills a String tensor from string_data. ONNX keeps strings
// nowhere else: raw_data or external data for one is a corrupt file. The
// element count is checked before anything is allocated, and the strings
// were already bounded by the size of the message that held them. Strings
// are bytes (ONNX does not require UTF-8), kept as they are.
func stringTensor(t *canon.Tensor, tp *onnxpb.TensorProto, hasRaw bool) (*canon.Tensor, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("tensor %q: %s", t.Name, fmt.Sprintf(format, args...))
	}
	if hasRaw || tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return nil, fail("a string tensor must hold its elements in string_data, not in raw_data or an external file; the file is corrupt")
	}
	numel := t.NumElements()
	if have := int64(len(tp.StringData)); have != numel {
		return nil, fail("string%v needs %d strings but string_data holds %d; the file is corrupt", t.Shape, numel, have)
	}
	t.Strings = make([]string, numel)
	for i, b := range tp.StringData {
		t.Strings[i] = string(b)
	}
	return t, nil
}
