package onnxexport

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// testTensor is a decoded TensorProto, values widened to float64.
type testTensor struct {
	dims  []int64
	dtype int32
	vals  []float64
	strs  []string // a string tensor's elements (vals is then empty)
}

func readTensorPB(path string) (*testTensor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tp := &onnxpb.TensorProto{}
	if err := proto.Unmarshal(b, tp); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t, err := decodeTensor(tp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

func decodeTensor(tp *onnxpb.TensorProto) (*testTensor, error) {
	t := &testTensor{dims: tp.Dims, dtype: tp.GetDataType()}
	n := canon.NumElements(tp.Dims)
	raw := tp.RawData
	switch onnxpb.TensorProto_DataType(t.dtype) {
	case onnxpb.TensorProto_STRING:
		t.strs = []string{}
		for _, b := range tp.StringData {
			t.strs = append(t.strs, string(b))
		}
	case onnxpb.TensorProto_FLOAT:
		if raw == nil {
			for _, v := range tp.FloatData {
				t.vals = append(t.vals, float64(v))
			}
			break
		}
		for i := int64(0); i < n; i++ {
			t.vals = append(t.vals, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))))
		}
	case onnxpb.TensorProto_DOUBLE:
		if raw == nil {
			t.vals = append(t.vals, tp.DoubleData...)
			break
		}
		for i := int64(0); i < n; i++ {
			t.vals = append(t.vals, math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
		}
	case onnxpb.TensorProto_INT64:
		if raw == nil {
			for _, v := range tp.Int64Data {
				t.vals = append(t.vals, float64(v))
			}
			break
		}
		for i := int64(0); i < n; i++ {
			t.vals = append(t.vals, float64(int64(binary.LittleEndian.Uint64(raw[8*i:]))))
		}
	case onnxpb.TensorProto_INT32:
		if raw == nil {
			for _, v := range tp.Int32Data {
				t.vals = append(t.vals, float64(v))
			}
			break
		}
		for i := int64(0); i < n; i++ {
			t.vals = append(t.vals, float64(int32(binary.LittleEndian.Uint32(raw[4*i:]))))
		}
	case onnxpb.TensorProto_UINT8, onnxpb.TensorProto_BOOL, onnxpb.TensorProto_INT8:
		if raw == nil {
			for _, v := range tp.Int32Data {
				t.vals = append(t.vals, float64(v))
			}
			break
		}
		for i := int64(0); i < n; i++ {
			if onnxpb.TensorProto_DataType(t.dtype) == onnxpb.TensorProto_INT8 {
				t.vals = append(t.vals, float64(int8(raw[i])))
			} else {
				t.vals = append(t.vals, float64(raw[i]))
			}
		}
	default:
		return nil, fmt.Errorf("tensor %q: data type %d not handled by the test decoder", tp.GetName(), t.dtype)
	}
	if int64(len(t.vals)+len(t.strs)) != n {
		return nil, fmt.Errorf("tensor %q: %d values for dims %v", tp.GetName(), len(t.vals), tp.Dims)
	}
	return t, nil
}

func sameDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compareRel checks max|a-b| <= rel * max|ref| (the whole-tensor relative
// error used for the torch models).
func compareRel(got, want *testTensor, rel float64) (float64, error) {
	if !sameDims(got.dims, want.dims) {
		return 0, fmt.Errorf("shape %v, want %v", got.dims, want.dims)
	}
	var maxDiff, maxRef float64
	for i := range want.vals {
		maxDiff = math.Max(maxDiff, math.Abs(got.vals[i]-want.vals[i]))
		maxRef = math.Max(maxRef, math.Abs(want.vals[i]))
		if math.IsNaN(got.vals[i]) != math.IsNaN(want.vals[i]) {
			return 0, fmt.Errorf("element %d: %v, want %v", i, got.vals[i], want.vals[i])
		}
	}
	r := 0.0
	if maxRef > 0 {
		r = maxDiff / maxRef
	} else if maxDiff > 0 {
		r = math.Inf(1)
	}
	if r > rel {
		return r, fmt.Errorf("relative error %.3g > %g (max|diff| %.3g, max|ref| %.3g)", r, rel, maxDiff, maxRef)
	}
	return r, nil
}

// compareElem checks |a-b| <= atol + rtol*|b| for every element.
func compareElem(got, want *testTensor, rtol, atol float64) error {
	if !sameDims(got.dims, want.dims) {
		return fmt.Errorf("shape %v, want %v", got.dims, want.dims)
	}
	if want.strs != nil {
		if !slices.Equal(got.strs, want.strs) {
			return fmt.Errorf("strings %q, want %q", got.strs, want.strs)
		}
		return nil
	}
	for i := range want.vals {
		a, b := got.vals[i], want.vals[i]
		if math.IsNaN(a) && math.IsNaN(b) || a == b {
			continue
		}
		if !(math.Abs(a-b) <= atol+rtol*math.Abs(b)) {
			return fmt.Errorf("element %d: %v, want %v", i, a, b)
		}
	}
	return nil
}
