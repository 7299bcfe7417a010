package onnxtensor

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// TestRoundTrip writes tensors of several dtypes as .pb files and reads
// them back bit for bit.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for i, in := range []*canon.Tensor{
		canon.NewFloat32Tensor("f", []int64{2, 3}, []float32{1, -2, 3.5, 0, 1e-30, 7}),
		canon.NewInt64Tensor("i", []int64{3}, []int64{-1, 0, 1 << 40}),
		{Name: "b", DType: canon.Bool, Shape: []int64{2}, Data: []byte{1, 0}},
		canon.NewFloat32Tensor("empty", []int64{0, 4}, nil),
	} {
		p := filepath.Join(dir, in.Name+".pb")
		if err := WriteFile(in, p); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		out, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		if out.Name != in.Name || out.DType != in.DType || len(out.Shape) != len(in.Shape) || !bytes.Equal(out.Data, in.Data) {
			t.Errorf("%s: read back %v %s %v", in.Name, out.Name, out.DType, out.Shape)
		}
	}
	bad := &canon.Tensor{Name: "s", DType: canon.Float32, Shape: []int64{2}, Data: []byte{1}}
	if err := WriteFile(bad, filepath.Join(dir, "s.pb")); err == nil {
		t.Error("a tensor with short data was written")
	}
}

// TestTypedFields decodes values stored in the typed repeated fields and
// refuses a count that does not match the shape.
func TestTypedFields(t *testing.T) {
	tp := &onnxpb.TensorProto{Name: proto.String("x"), DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Dims: []int64{2}, FloatData: []float32{1.5, -2}}
	msg, err := proto.Marshal(tp)
	if err != nil {
		t.Fatal(err)
	}
	got, err := (&Reader{}).Decode(msg)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := got.Float64s(); len(v) != 2 || v[0] != 1.5 || v[1] != -2 {
		t.Errorf("values %v", v)
	}
	tp.Dims = []int64{3}
	if _, err := ReadProto(tp, ""); err == nil || !strings.Contains(err.Error(), "needs 3 values") {
		t.Errorf("error %v", err)
	}
}
