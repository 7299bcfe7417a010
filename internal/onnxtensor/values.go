package onnxtensor

import (
	"bytes"
	"fmt"
	"path/filepath"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/internal/regfile"
)

// ONNX keeps sequence and optional values (in test data files such as
// input_0.pb) in SequenceProto and OptionalProto messages (onnx-data.proto):
//
//	SequenceProto { name = 1; elem_type = 2; tensor_values = 3 (repeated) ... }
//	OptionalProto { name = 1; elem_type = 2; tensor_value = 3; sequence_value = 5 ... }
//
// with elem_type 1 for tensors, 3 for sequences, 5 for optionals. Only
// sequences of tensors and optionals of tensors or sequences are read.
const (
	protoElemTensor   = 1
	protoElemSequence = 3
	protoElemOptional = 5
)

// ReadValueFile reads a value of want's kind: a TensorProto, SequenceProto
// or OptionalProto. want's dtype types an empty sequence or optional.
func ReadValueFile(path string, want canon.ValueInfo) (v canon.Value, err error) {
	if want.IsTensor() {
		return ReadFile(path)
	}
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	defer panicerr.Recover(path+": reading the value", &err)
	r := &Reader{BaseDir: filepath.Dir(path)}
	if want.Kind.IsOptional() {
		v, err = r.decodeOptional(data, want)
	} else {
		v, err = r.decodeSequence(data, want.DType)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

func (r *Reader) decodeSequence(msg []byte, dt canon.DType) (*canon.Sequence, error) {
	s := &canon.Sequence{DType: dt}
	elem := int64(0)
	err := Walk(msg, func(f Field) error {
		switch {
		case f.Num == 1 && f.Type == protowire.BytesType:
			s.Name = string(f.Payload)
		case f.Num == 2 && f.Type == protowire.VarintType:
			v, n := protowire.ConsumeVarint(f.Whole[protowire.SizeTag(f.Num):])
			if n < 0 {
				return wireErr(n)
			}
			elem = int64(v)
		case f.Num == 3 && f.Type == protowire.BytesType:
			t, err := r.Decode(f.Payload)
			if err != nil {
				return fmt.Errorf("tensor %d of the sequence: %w", len(s.Tensors), err)
			}
			s.Tensors = append(s.Tensors, t)
		case f.Num >= 4 && f.Num <= 7:
			return fmt.Errorf("the sequence holds sparse tensors, sequences, maps or optionals; only sequences of tensors are supported")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if elem != 0 && elem != protoElemTensor {
		return nil, fmt.Errorf("the sequence's elem_type is %d; only sequences of tensors (1) are supported", elem)
	}
	for i, t := range s.Tensors {
		if s.DType == canon.Undefined {
			s.DType = t.DType
		}
		if t.DType != s.DType {
			return nil, fmt.Errorf("tensor %d of the sequence is %s, want %s", i, t.DType, s.DType)
		}
	}
	return s, nil
}

func (r *Reader) decodeOptional(msg []byte, want canon.ValueInfo) (*canon.OptionalValue, error) {
	o := &canon.OptionalValue{Kind: want.Kind, DType: want.DType}
	err := Walk(msg, func(f Field) error {
		switch {
		case f.Num == 1 && f.Type == protowire.BytesType:
			o.Name = string(f.Payload)
		case f.Num == 3 && f.Type == protowire.BytesType:
			t, err := r.Decode(f.Payload)
			if err != nil {
				return fmt.Errorf("the optional's tensor: %w", err)
			}
			o.Value = t
		case f.Num == 5 && f.Type == protowire.BytesType:
			s, err := r.decodeSequence(f.Payload, want.DType)
			if err != nil {
				return fmt.Errorf("the optional's sequence: %w", err)
			}
			o.Value = s
		case f.Num == 4 || f.Num == 6 || f.Num == 7:
			return fmt.Errorf("the optional holds a sparse tensor, a map or an optional; only tensors and sequences are supported")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if o.Value != nil && o.Value.ValueKind() != want.Kind.Element() {
		return nil, fmt.Errorf("the optional holds a %s, want a %s", o.Value.ValueKind(), want.Kind.Element())
	}
	switch x := o.Value.(type) {
	case *canon.Tensor:
		if o.DType == canon.Undefined {
			o.DType = x.DType
		}
	case *canon.Sequence:
		if o.DType == canon.Undefined {
			o.DType = x.DType
		}
	}
	return o, nil
}

// EncodeValue serializes a value as ONNX does: a TensorProto, a
// SequenceProto or an OptionalProto.
func EncodeValue(v canon.Value, name string) ([]byte, error) {
	var b []byte
	switch x := v.(type) {
	case *canon.Tensor:
		return encodeTensor(x, name)
	case *canon.Sequence:
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, protoElemTensor)
		for i, t := range x.Tensors {
			tb, err := encodeTensor(t, "")
			if err != nil {
				return nil, fmt.Errorf("tensor %d of the sequence: %w", i, err)
			}
			b = protowire.AppendTag(b, 3, protowire.BytesType)
			b = protowire.AppendBytes(b, tb)
		}
		return b, nil
	case *canon.OptionalValue:
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		elem := int64(protoElemTensor)
		if x.Kind.Element() == canon.SequenceValue {
			elem = protoElemSequence
		}
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(elem))
		if x.Value != nil {
			inner, err := EncodeValue(x.Value, "")
			if err != nil {
				return nil, err
			}
			field := protowire.Number(3)
			if x.Value.ValueKind() == canon.SequenceValue {
				field = 5
			}
			b = protowire.AppendTag(b, field, protowire.BytesType)
			b = protowire.AppendBytes(b, inner)
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown value type %T", v)
}

func encodeTensor(t *canon.Tensor, name string) ([]byte, error) {
	c := *t
	c.Name = name
	if err := Check(&c); err != nil {
		return nil, err
	}
	s, err := NewStream(&c)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := s.WriteBody(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteValueFile writes v (a tensor, sequence or optional) as ONNX test
// data does, replacing path atomically.
func WriteValueFile(v canon.Value, name, path string) error {
	if t, ok := v.(*canon.Tensor); ok {
		c := *t
		c.Name = name
		return WriteFile(&c, path)
	}
	b, err := EncodeValue(v, name)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Commit()
}
