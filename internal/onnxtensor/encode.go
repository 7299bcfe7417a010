package onnxtensor

import (
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// toONNX maps canonical element types to TensorProto.DataType codes.
var toONNX = map[canon.DType]onnxpb.TensorProto_DataType{
	canon.Float32:  onnxpb.TensorProto_FLOAT,
	canon.Float16:  onnxpb.TensorProto_FLOAT16,
	canon.BFloat16: onnxpb.TensorProto_BFLOAT16,
	canon.Float64:  onnxpb.TensorProto_DOUBLE,
	canon.Int8:     onnxpb.TensorProto_INT8,
	canon.Int16:    onnxpb.TensorProto_INT16,
	canon.Int32:    onnxpb.TensorProto_INT32,
	canon.Int64:    onnxpb.TensorProto_INT64,
	canon.Uint8:    onnxpb.TensorProto_UINT8,
	canon.Uint16:   onnxpb.TensorProto_UINT16,
	canon.Uint32:   onnxpb.TensorProto_UINT32,
	canon.Uint64:   onnxpb.TensorProto_UINT64,
	canon.Bool:     onnxpb.TensorProto_BOOL,
	canon.String:   onnxpb.TensorProto_STRING,
}

// DataType returns the ONNX TensorProto data type code of d, and false when
// ONNX has no equivalent.
func DataType(d canon.DType) (int32, bool) {
	c, ok := toONNX[d]
	return int32(c), ok
}

// ToProto converts t to a TensorProto holding its bytes in raw_data (a
// String tensor's elements in string_data, which Header fills).
// RawData aliases t.Data (no copy), so the result must not outlive the
// tensor's graph. A dtype ONNX cannot hold gives data_type UNDEFINED.
func ToProto(t *canon.Tensor) *onnxpb.TensorProto {
	tp := Header(t)
	if t.DType == canon.String {
		return tp
	}
	tp.RawData = t.Data
	if tp.RawData == nil {
		tp.RawData = []byte{} // present but empty: a zero-element tensor
	}
	return tp
}

// Header is the TensorProto of t without its raw_data field. A String
// tensor's elements are part of it (string_data): ONNX stores strings only
// there, never in raw_data or an external file.
func Header(t *canon.Tensor) *onnxpb.TensorProto {
	code, _ := DataType(t.DType)
	tp := &onnxpb.TensorProto{
		Dims:     append([]int64{}, t.Shape...),
		DataType: proto.Int32(code),
	}
	if t.DType == canon.String {
		tp.StringData = make([][]byte, len(t.Strings))
		for i, s := range t.Strings {
			tp.StringData[i] = []byte(s)
		}
	}
	if t.Name != "" {
		tp.Name = proto.String(t.Name)
	}
	return tp
}

// Check reports why t cannot be written as an ONNX tensor.
func Check(t *canon.Tensor) error {
	if _, ok := DataType(t.DType); !ok {
		return fmt.Errorf("tensor %q has dtype %s, which ONNX cannot store", t.Name, t.DType)
	}
	return t.CheckData()
}

// MarshalOptions make encoding deterministic, so the same graph always
// gives the same bytes.
var MarshalOptions = proto.MarshalOptions{Deterministic: true}

// Stream is a tensor written as a TensorProto whose raw_data field is
// streamed from Data after the small Header bytes, so that writing a weight
// never copies it.
type Stream struct {
	Header []byte // marshalled TensorProto without raw_data
	Data   []byte // the raw_data payload, when Inline
	// Inline is false when the data lives in an external file and the
	// header says where, or is in the header itself (a String tensor's
	// string_data): no raw_data field is written.
	Inline bool
}

// NewStream marshals t's header for streaming t with its data inline.
func NewStream(t *canon.Tensor) (*Stream, error) {
	hdr, err := MarshalOptions.Marshal(Header(t))
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	return &Stream{Header: hdr, Data: t.Data, Inline: t.DType != canon.String}, nil
}

// Size is the byte length of the TensorProto message.
func (s *Stream) Size() int {
	n := len(s.Header)
	if s.Inline {
		n += protowire.SizeTag(9) + protowire.SizeBytes(len(s.Data))
	}
	return n
}

// WriteBody streams the message body (without any enclosing tag or length).
func (s *Stream) WriteBody(w io.Writer) error {
	if _, err := w.Write(s.Header); err != nil {
		return err
	}
	if !s.Inline {
		return nil
	}
	var pre [16]byte
	b := protowire.AppendTag(pre[:0], 9, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(s.Data)))
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err := w.Write(s.Data)
	return err
}

// WriteFile writes t as one serialized TensorProto (raw_data), the format
// of ONNX test data files (input_0.pb). The file is replaced atomically: on
// error any existing file at path is left as it was.
func WriteFile(t *canon.Tensor, path string) error {
	if err := Check(t); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s, err := NewStream(t)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := s.WriteBody(f); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Commit()
}
