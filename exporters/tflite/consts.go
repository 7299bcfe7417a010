package tfliteexport

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// fileType is the TFLite tensor type of a canonical dtype.
func fileType(dt canon.DType) (tflitefb.TensorType, error) {
	switch dt {
	case canon.Float32:
		return tflitefb.TensorTypeFLOAT32, nil
	case canon.Float16:
		return tflitefb.TensorTypeFLOAT16, nil
	case canon.Float64:
		return tflitefb.TensorTypeFLOAT64, nil
	case canon.Int32:
		return tflitefb.TensorTypeINT32, nil
	case canon.Int64:
		return tflitefb.TensorTypeINT64, nil
	case canon.Int16:
		return tflitefb.TensorTypeINT16, nil
	case canon.Int8:
		return tflitefb.TensorTypeINT8, nil
	case canon.Uint8:
		return tflitefb.TensorTypeUINT8, nil
	case canon.Bool:
		return tflitefb.TensorTypeBOOL, nil
	}
	return 0, fmt.Errorf("TFLite has no %s tensors", dt)
}

// permuteData returns t's data with its axes in the order perm gives
// (output axis i is t's axis perm[i]) and the permuted shape.
func permuteData(t *canon.Tensor, perm []int) ([]int64, []byte, error) {
	if err := t.CheckData(); err != nil {
		return nil, nil, err
	}
	rank := len(t.Shape)
	p := permOrIdentity(perm, rank)
	shape := make([]int64, rank)
	for i, a := range p {
		shape[i] = t.Shape[a]
	}
	if perm == nil || sameOrder(t.Shape, nil, perm) {
		return shape, t.Data, nil
	}
	size := int64(t.DType.Size())
	inStride := make([]int64, rank)
	s := size
	for a := rank - 1; a >= 0; a-- {
		inStride[a] = s
		s *= t.Shape[a]
	}
	out := make([]byte, len(t.Data))
	idx := make([]int64, rank)
	var src int64
	for dst := int64(0); dst < int64(len(out)); dst += size {
		copy(out[dst:dst+size], t.Data[src:src+size])
		for i := rank - 1; i >= 0; i-- {
			idx[i]++
			src += inStride[p[i]]
			if idx[i] < shape[i] {
				break
			}
			src -= inStride[p[i]] * shape[i]
			idx[i] = 0
		}
	}
	return shape, out, nil
}

func permKey(p []int) string {
	var sb strings.Builder
	for _, a := range p {
		sb.WriteString(strconv.Itoa(a))
	}
	return sb.String()
}

// constTensor returns the file tensor of constant t in layout want; with
// float16 weights, a float32 constant is stored as float16 and widened by
// a DEQUANTIZE (made once per constant and layout).
func (e *exporter) constTensor(name string, t *canon.Tensor, want []int) (int32, error) {
	return e.constTensorKeyed(name+"|"+permKey(want), name, t, want)
}

func (e *exporter) constTensorKeyed(key, name string, t *canon.Tensor, want []int) (int32, error) {
	if idx, ok := e.constIdx[key]; ok {
		return idx, nil
	}
	shape, data, err := permuteData(t, want)
	if err != nil {
		return 0, err
	}
	dt := t.DType
	if dt == canon.Int64 && len(shape) <= 1 {
		// Shape-like constants (a reshape target, slice bounds) are
		// int32 in TFLite.
		dt, data = canon.Int32, narrowInt64(data)
	}
	fs := make([]int32, len(shape))
	for i, d := range shape {
		fs[i] = int32(d)
	}
	var idx int32
	if e.o.Float16Weights && e.o.HalfRoundedWeights && dt == canon.Float32 {
		rounded := make([]byte, len(data))
		for i := 0; i < len(data)/4; i++ {
			h := canon.Float32ToHalf(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
			binary.LittleEndian.PutUint32(rounded[4*i:], math.Float32bits(canon.HalfToFloat32(h)))
		}
		if idx, err = e.addTensor(name, fs, dt, rounded); err != nil {
			return 0, err
		}
	} else if e.o.Float16Weights && dt == canon.Float32 {
		half := make([]byte, len(data)/2)
		for i := 0; i < len(data)/4; i++ {
			binary.LittleEndian.PutUint16(half[2*i:], canon.Float32ToHalf(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))))
		}
		h, err := e.addTensor(name+"/fp16", fs, canon.Float16, half)
		if err != nil {
			return 0, err
		}
		if idx, err = e.addTensor(name, fs, canon.Float32, nil); err != nil {
			return 0, err
		}
		e.emit(tflitefb.BuiltinOperatorDEQUANTIZE, []int32{h}, []int32{idx}, tflitefb.BuiltinOptionsDequantizeOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.DequantizeOptionsStart(b)
			return tflitefb.DequantizeOptionsEnd(b)
		})
		e.report.halfWeights++
	} else if idx, err = e.addTensor(name, fs, dt, data); err != nil {
		return 0, err
	}
	e.constIdx[key] = idx
	return idx, nil
}

func narrowInt64(data []byte) []byte {
	out := make([]byte, len(data)/2)
	for i := 0; i < len(data)/8; i++ {
		v := int64(binary.LittleEndian.Uint64(data[8*i:]))
		if v > math.MaxInt32 {
			v = math.MaxInt32
		} else if v < math.MinInt32 {
			v = math.MinInt32
		}
		binary.LittleEndian.PutUint32(out[4*i:], uint32(int32(v)))
	}
	return out
}

// constI32 adds an int32 constant (shapes, axes, paddings).
func (e *exporter) constI32(name string, shape []int32, v []int32) (int32, error) {
	data := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(x))
	}
	return e.addTensor(name, shape, canon.Int32, data)
}

// constF32 adds a float32 constant of file shape (already in file order),
// stored as float16 behind a DEQUANTIZE with float16 weights.
func (e *exporter) constF32(name string, shape []int32, v []float32) (int32, error) {
	s := make([]int64, len(shape))
	for i, d := range shape {
		s[i] = int64(d)
	}
	t := canon.NewFloat32Tensor(name, s, v)
	e.constSeq++
	return e.constTensorKeyed("#"+strconv.Itoa(e.constSeq), name, t, nil)
}

// floats reads a float constant's values.
func floats(t *canon.Tensor) ([]float32, error) {
	if t.DType == canon.Float32 {
		// Without a float64 copy: weights may be hundreds of megabytes.
		if err := t.CheckData(); err != nil {
			return nil, err
		}
		out := make([]float32, len(t.Data)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
		}
		return out, nil
	}
	v, err := t.Float64s()
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out, nil
}
