package onnxexport

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// onnxDType maps canonical element types to TensorProto.DataType codes.
var onnxDType = map[canon.DType]onnxpb.TensorProto_DataType{
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
}

// DataType returns the ONNX TensorProto data type code of d, and false when
// ONNX has no equivalent.
func DataType(d canon.DType) (int32, bool) {
	c, ok := onnxDType[d]
	return int32(c), ok
}

// TensorToProto converts t to a TensorProto holding its bytes in raw_data.
// RawData aliases t.Data (no copy), so the result must not outlive the
// tensor's graph. A dtype ONNX cannot hold gives data_type UNDEFINED.
func TensorToProto(t *canon.Tensor) *onnxpb.TensorProto {
	tp := tensorHeader(t)
	tp.RawData = t.Data
	if tp.RawData == nil {
		tp.RawData = []byte{} // present but empty: a zero-element tensor
	}
	return tp
}

// tensorHeader is the TensorProto of t without any data field.
func tensorHeader(t *canon.Tensor) *onnxpb.TensorProto {
	code, _ := DataType(t.DType)
	tp := &onnxpb.TensorProto{
		Dims:     append([]int64{}, t.Shape...),
		DataType: proto.Int32(code),
	}
	if t.Name != "" {
		tp.Name = proto.String(t.Name)
	}
	return tp
}

// checkTensor reports why t cannot be written as an ONNX tensor.
func checkTensor(t *canon.Tensor) error {
	if _, ok := DataType(t.DType); !ok {
		return fmt.Errorf("tensor %q has dtype %s, which ONNX cannot store", t.Name, t.DType)
	}
	return t.CheckData()
}

var marshalOpts = proto.MarshalOptions{Deterministic: true}

// inlineTensor is a tensor written as a TensorProto whose raw_data field is
// streamed from data after the small header bytes.
type inlineTensor struct {
	header []byte // marshalled TensorProto without raw_data
	data   []byte // nil when the data lives in the external file
	inline bool
}

// size is the byte length of the TensorProto message.
func (it *inlineTensor) size() int {
	n := len(it.header)
	if it.inline {
		n += protowire.SizeTag(9) + protowire.SizeBytes(len(it.data))
	}
	return n
}

// writeTo streams the message body (without any enclosing tag or length).
func (it *inlineTensor) writeTo(w io.Writer) error {
	if _, err := w.Write(it.header); err != nil {
		return err
	}
	if !it.inline {
		return nil
	}
	var pre [16]byte
	b := protowire.AppendTag(pre[:0], 9, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(it.data)))
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err := w.Write(it.data)
	return err
}

// WriteTensorFile writes t as one serialized TensorProto (raw_data), the
// format of ONNX test data files (input_0.pb). The file is replaced
// atomically: on error any existing file at path is left as it was.
func WriteTensorFile(t *canon.Tensor, path string) error {
	if err := checkTensor(t); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	hdr, err := marshalOpts.Marshal(tensorHeader(t))
	if err != nil {
		return fmt.Errorf("%s: tensor %q: %w", path, t.Name, err)
	}
	it := &inlineTensor{header: hdr, data: t.Data, inline: true}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := it.writeTo(f); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Commit()
}

// scalarBytes encodes v as one element of dtype d (little-endian), for
// parameter inputs such as Clip bounds and Pad values that must match the
// data's type. ok is false when v cannot be represented exactly enough
// (an infinity or NaN for an integer type) or d is not numeric.
func scalarBytes(d canon.DType, v float32) (b []byte, ok bool) {
	f := float64(v)
	if d.IsInt() && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, false
	}
	b = make([]byte, d.Size())
	switch d {
	case canon.Float32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(v))
	case canon.Float64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(f))
	case canon.Float16:
		binary.LittleEndian.PutUint16(b, canon.Float32ToHalf(v))
	case canon.BFloat16:
		binary.LittleEndian.PutUint16(b, canon.Float32ToBFloat16(v))
	case canon.Int8:
		b[0] = byte(int8(clampInt(f, math.MinInt8, math.MaxInt8)))
	case canon.Uint8:
		b[0] = byte(clampInt(f, 0, math.MaxUint8))
	case canon.Int16:
		binary.LittleEndian.PutUint16(b, uint16(int16(clampInt(f, math.MinInt16, math.MaxInt16))))
	case canon.Uint16:
		binary.LittleEndian.PutUint16(b, uint16(clampInt(f, 0, math.MaxUint16)))
	case canon.Int32:
		binary.LittleEndian.PutUint32(b, uint32(int32(clampInt(f, math.MinInt32, math.MaxInt32))))
	case canon.Uint32:
		binary.LittleEndian.PutUint32(b, uint32(clampInt(f, 0, math.MaxUint32)))
	case canon.Int64:
		binary.LittleEndian.PutUint64(b, uint64(clampInt(f, math.MinInt64, math.MaxInt64)))
	case canon.Uint64:
		binary.LittleEndian.PutUint64(b, uint64(clampInt(f, 0, math.MaxInt64)))
	default:
		return nil, false
	}
	return b, true
}

// clampInt truncates f toward zero and clamps it to [lo, hi].
func clampInt(f, lo, hi float64) int64 {
	f = math.Trunc(f)
	if f < lo {
		f = lo
	}
	if f > hi {
		f = hi
	}
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f)
}
