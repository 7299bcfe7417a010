package onnximport

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// Small builders for hand-made ONNX models.

const (
	tFloat = int32(onnxpb.TensorProto_FLOAT)
	tInt64 = int32(onnxpb.TensorProto_INT64)
)

func vinfo(name string, elem int32, dims ...int64) *onnxpb.ValueInfoProto {
	sh := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		sh.Dim = append(sh.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(elem), Shape: sh}}}}
}

func node(op, name string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	n := &onnxpb.NodeProto{OpType: proto.String(op), Input: ins, Output: outs, Attribute: attrs}
	if name != "" {
		n.Name = proto.String(name)
	}
	return n
}

func aInt(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func aInts(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func aStr(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

// f32Tensor holds v as raw little-endian data.
func f32Tensor(name string, dims []int64, v ...float32) *onnxpb.TensorProto {
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(tFloat), Dims: dims, RawData: raw}
}

func i64Tensor(name string, v ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(tInt64), Dims: []int64{int64(len(v))}, Int64Data: v}
}

func seq(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(i)
	}
	return out
}

type graphSpec struct {
	opset   int64
	nodes   []*onnxpb.NodeProto
	inputs  []*onnxpb.ValueInfoProto
	outputs []*onnxpb.ValueInfoProto
	inits   []*onnxpb.TensorProto
}

func (s graphSpec) model() *onnxpb.ModelProto {
	opset := s.opset
	if opset == 0 {
		opset = 13
	}
	return &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("modelbridge-test"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("g"), Node: s.nodes, Input: s.inputs, Output: s.outputs,
			Initializer: s.inits},
	}
}

// write serializes m as model.onnx in a new temporary folder.
func write(t testing.TB, m *onnxpb.ModelProto) string {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return writeBytes(t, b)
}

func writeBytes(t testing.TB, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// convModel is x(1,2,5,5) -> Conv(w 3x2x3x3, b) -> Relu -> y.
func convModel() graphSpec {
	return graphSpec{
		nodes: []*onnxpb.NodeProto{
			node("Conv", "conv", []string{"x", "w", "b"}, []string{"c"}, aInts("pads", 1, 1, 1, 1)),
			node("Relu", "relu", []string{"c"}, []string{"y"}),
		},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 2, 5, 5)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 3, 5, 5)},
		inits: []*onnxpb.TensorProto{
			f32Tensor("w", []int64{3, 2, 3, 3}, seq(54)...),
			f32Tensor("b", []int64{3}, 1, 2, 3),
		},
	}
}
