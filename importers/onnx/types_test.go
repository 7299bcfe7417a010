package onnximport

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

func tensorTP(elem int32, dims ...int64) *onnxpb.TypeProto {
	sh := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		sh.Dim = append(sh.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(elem), Shape: sh}}}
}

func seqTP(elem *onnxpb.TypeProto) *onnxpb.TypeProto {
	return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_SequenceType{SequenceType: &onnxpb.TypeProto_Sequence{ElemType: elem}}}
}

func optTP(elem *onnxpb.TypeProto) *onnxpb.TypeProto {
	return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_OptionalType{OptionalType: &onnxpb.TypeProto_Optional{ElemType: elem}}}
}

// TestTypeInfo reads tensor, sequence and optional types, and refuses
// what canon has no kind for by name.
func TestTypeInfo(t *testing.T) {
	for _, tc := range []struct {
		tp   *onnxpb.TypeProto
		want string
	}{
		{tensorTP(1, 2, 3), "f32[2 3]"},
		{seqTP(tensorTP(7, 4)), "seq(i64[4])"},
		{optTP(tensorTP(1)), "opt(f32[])"},
		{optTP(seqTP(tensorTP(1, 5))), "opt(seq(f32[5]))"},
		{seqTP(seqTP(tensorTP(1))), "only sequences of tensors"},
		{optTP(optTP(tensorTP(1))), "an optional of an optional"},
		{&onnxpb.TypeProto{Value: &onnxpb.TypeProto_MapType{MapType: &onnxpb.TypeProto_Map{}}}, "map or a sparse tensor"},
	} {
		v, err := typeInfo(tc.tp)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = v.TypeString()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	if v, _ := typeInfo(seqTP(tensorTP(1))); v.Kind != canon.SequenceValue {
		t.Errorf("a sequence reads as a %s", v.Kind)
	}
}
