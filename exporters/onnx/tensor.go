package onnxexport

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// The TensorProto codec lives in internal/onnxtensor.

// DataType returns the ONNX TensorProto data type code of d, and false when
// ONNX has no equivalent.
func DataType(d canon.DType) (int32, bool) { return onnxtensor.DataType(d) }

// TensorToProto converts t to a TensorProto holding its bytes in raw_data
// (aliasing t.Data).
func TensorToProto(t *canon.Tensor) *onnxpb.TensorProto { return onnxtensor.ToProto(t) }

// WriteTensorFile writes t as one serialized TensorProto (raw_data), the
// format of ONNX test data files (input_0.pb), replacing any file at path
// atomically.
func WriteTensorFile(t *canon.Tensor, path string) error { return onnxtensor.WriteFile(t, path) }

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
