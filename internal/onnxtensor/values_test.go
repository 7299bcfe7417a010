package onnxtensor

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestValueFilesRoundTrip writes a sequence, an optional sequence, an
// optional tensor and an empty optional as ONNX test data does and reads
// them back as their declared types.
func TestValueFilesRoundTrip(t *testing.T) {
	a := canon.NewFloat32Tensor("", []int64{2}, []float32{1, 2})
	b := canon.NewFloat32Tensor("", []int64{1, 3}, []float32{3, 4, 5})
	seq := &canon.Sequence{DType: canon.Float32, Tensors: []*canon.Tensor{a, b}}
	for _, tc := range []struct {
		v    canon.Value
		want canon.ValueInfo
	}{
		{seq, canon.ValueInfo{DType: canon.Float32, Kind: canon.SequenceValue}},
		{&canon.Sequence{DType: canon.Int64}, canon.ValueInfo{DType: canon.Int64, Kind: canon.SequenceValue}},
		{&canon.OptionalValue{Kind: canon.OptionalSequence, DType: canon.Float32, Value: seq}, canon.ValueInfo{DType: canon.Float32, Kind: canon.OptionalSequence}},
		{&canon.OptionalValue{Kind: canon.OptionalTensor, DType: canon.Float32, Value: a}, canon.ValueInfo{DType: canon.Float32, Kind: canon.OptionalTensor}},
		{&canon.OptionalValue{Kind: canon.OptionalTensor, DType: canon.Float32}, canon.ValueInfo{DType: canon.Float32, Kind: canon.OptionalTensor}},
	} {
		p := filepath.Join(t.TempDir(), "v.pb")
		if err := WriteValueFile(tc.v, "v", p); err != nil {
			t.Fatal(err)
		}
		got, err := ReadValueFile(p, tc.want)
		if err != nil {
			t.Fatalf("%s: %v", tc.want.Kind, err)
		}
		if err := canon.CheckValue(tc.want, got); err != nil {
			t.Errorf("%s: read back: %v", tc.want.Kind, err)
		}
		if describe(got) != describe(tc.v) {
			t.Errorf("%s: read back %s, wrote %s", tc.want.Kind, describe(got), describe(tc.v))
		}
	}
}

func describe(v canon.Value) string {
	switch x := v.(type) {
	case *canon.Tensor:
		f, _ := x.Float64s()
		return fmt.Sprint(x.DType, x.Shape, f)
	case *canon.Sequence:
		s := "seq " + x.DType.String() + "("
		for _, t := range x.Tensors {
			s += describe(t) + ";"
		}
		return s + ")"
	case *canon.OptionalValue:
		if x.Value == nil {
			return "empty " + x.Kind.String()
		}
		return x.Kind.String() + " " + describe(x.Value)
	}
	return "?"
}

// TestValueFileRefusals: a file of the wrong kind, or a sequence of
// sequences, is an error, not a misread value.
func TestValueFileRefusals(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.pb")
	inner, err := EncodeValue(&canon.Sequence{DType: canon.Float32}, "")
	if err != nil {
		t.Fatal(err)
	}
	// SequenceProto{elem_type: 3 (sequence), sequence_values: [inner]}
	msg := append([]byte{0x10, 0x03, 0x2a, byte(len(inner))}, inner...)
	r := &Reader{}
	if _, err := r.decodeSequence(msg, canon.Float32); err == nil || !strings.Contains(err.Error(), "only sequences of tensors") {
		t.Errorf("a sequence of sequences: got %v", err)
	}
	opt := &canon.OptionalValue{Kind: canon.OptionalTensor, DType: canon.Float32, Value: canon.NewFloat32Tensor("", []int64{1}, []float32{1})}
	if err := WriteValueFile(opt, "", p); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadValueFile(p, canon.ValueInfo{DType: canon.Float32, Kind: canon.OptionalSequence}); err == nil {
		t.Errorf("an optional tensor read as an optional sequence: no error")
	}
}
