package robust

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
)

func f32Raw(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func tensorInfo(name string, dims ...int64) *onnxpb.ValueInfoProto {
	var ds []*onnxpb.TensorShapeProto_Dimension
	for _, d := range dims {
		ds = append(ds, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(1), Shape: &onnxpb.TensorShapeProto{Dim: ds}},
	}}}
}

// A Conv whose padding is wider than its input (ONNX's pytorch-converted
// test_Conv1d_pad2size1: length 1, kernel 5, pads 2) runs as ONNX Runtime
// runs it: the only output meets the input at the kernel's middle tap.
func TestConvPaddingWiderThanInput(t *testing.T) {
	w := &onnxpb.TensorProto{Name: proto.String("w"), DataType: proto.Int32(1), Dims: []int64{1, 1, 5}, RawData: f32Raw(1, 2, 3, 4, 5)}
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{
			Name: proto.String("conv"),
			Node: []*onnxpb.NodeProto{{OpType: proto.String("Conv"), Name: proto.String("conv"), Input: []string{"x", "w"}, Output: []string{"y"},
				Attribute: []*onnxpb.AttributeProto{{Name: proto.String("pads"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: []int64{2, 2}}}}},
			Input:       []*onnxpb.ValueInfoProto{tensorInfo("x", 1, 1, 1)},
			Output:      []*onnxpb.ValueInfoProto{tensorInfo("y", 1, 1, 1)},
			Initializer: []*onnxpb.TensorProto{w},
		},
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "conv.onnx")
	if err := os.WriteFile(model, b, 0o644); err != nil {
		t.Fatal(err)
	}
	x, _ := proto.Marshal(&onnxpb.TensorProto{Name: proto.String("x"), DataType: proto.Int32(1), Dims: []int64{1, 1, 1}, RawData: f32Raw(7)})
	if err := os.WriteFile(filepath.Join(dir, "x.pb"), x, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, stderr, code := runBin(t, "run", model, "--input", "x="+filepath.Join(dir, "x.pb"), "--out", out); code != 0 {
		t.Fatalf("run failed: %s", stderr)
	}
	y, err := tensorfile.Load(filepath.Join(out, "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := y.Float64s()
	if err != nil || len(got) != 1 || got[0] != 21 {
		t.Errorf("y = %v (%v), want [21] (7 times the middle tap 3)", got, err)
	}
}
