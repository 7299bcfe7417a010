package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// The TensorProto codec lives in internal/onnxtensor; these stay for
// callers that read ONNX test data through the importer.

// ReadTensorProto converts one TensorProto. Raw data is used in place
// (tensor.Data aliases tp.RawData); external data is resolved relative to
// baseDir and read into memory.
func ReadTensorProto(tp *onnxpb.TensorProto, baseDir string) (*canon.Tensor, error) {
	return onnxtensor.ReadProto(tp, baseDir)
}

// ReadTensorFile reads a serialized TensorProto (such as a conformance
// test's test_data_set_0/input_0.pb). The tensor is named as in the file.
func ReadTensorFile(path string) (*canon.Tensor, error) {
	return onnxtensor.ReadFile(path)
}
