package canon

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Tensor is a named constant (a weight, or a Constant node's value).
//
// Data holds the elements in little-endian byte order, row-major, densely
// packed. It may alias a read-only memory mapping of the source file, so it
// must never be written to; build a new slice to change a tensor.
//
// A String tensor has no Data: its elements are in Strings, row-major.
type Tensor struct {
	Name    string
	DType   DType
	Shape   []int64
	Layout  Layout
	Data    []byte
	Strings []string
}

// NumElements is the product of the shape (1 for a scalar). It returns -1 if
// a dimension is negative or the product overflows int64.
func NumElements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d != 0 && n > math.MaxInt64/d {
			return -1
		}
		n *= d
	}
	return n
}

// NumElements of the tensor.
func (t *Tensor) NumElements() int64 { return NumElements(t.Shape) }

// ByteSize is the number of data bytes the shape and dtype call for, or -1 on
// overflow.
func (t *Tensor) ByteSize() int64 {
	n := t.NumElements()
	if n < 0 || (t.DType.Size() > 0 && n > math.MaxInt64/int64(t.DType.Size())) {
		return -1
	}
	return n * int64(t.DType.Size())
}

// CheckData reports an error if Data does not hold exactly ByteSize bytes
// (for a String tensor: if Strings does not hold one string per element).
func (t *Tensor) CheckData() error {
	want := t.ByteSize()
	if want < 0 {
		return fmt.Errorf("tensor %q: shape %v overflows", t.Name, t.Shape)
	}
	if t.DType == String {
		return t.checkStrings()
	}
	if int64(len(t.Data)) != want {
		return fmt.Errorf("tensor %q: %s%v needs %d bytes of data, has %d", t.Name, t.DType, t.Shape, want, len(t.Data))
	}
	return nil
}

// Int64s decodes an integer tensor (any integer dtype) as int64 values. It is
// meant for small shape-like tensors (Reshape targets, axes, pads).
func (t *Tensor) Int64s() ([]int64, error) {
	if err := t.CheckData(); err != nil {
		return nil, err
	}
	n := int(t.NumElements())
	out := make([]int64, n)
	b := t.Data
	for i := range out {
		switch t.DType {
		case Int64:
			out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		case Int32:
			out[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		case Int16:
			out[i] = int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
		case Int8:
			out[i] = int64(int8(b[i]))
		case Uint8, Bool:
			out[i] = int64(b[i])
		case Uint16:
			out[i] = int64(binary.LittleEndian.Uint16(b[2*i:]))
		case Uint32:
			out[i] = int64(binary.LittleEndian.Uint32(b[4*i:]))
		case Uint64:
			out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		default:
			return nil, fmt.Errorf("tensor %q: want integers, have %s", t.Name, t.DType)
		}
	}
	return out, nil
}

// Float64s decodes a float32 or float64 (or integer) tensor as float64
// values; for small parameter tensors such as Clip bounds and Resize scales.
func (t *Tensor) Float64s() ([]float64, error) {
	if err := t.CheckData(); err != nil {
		return nil, err
	}
	switch t.DType {
	case Float32:
		out := make([]float64, t.NumElements())
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:])))
		}
		return out, nil
	case Float64:
		out := make([]float64, t.NumElements())
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:]))
		}
		return out, nil
	case Float16:
		out := make([]float64, t.NumElements())
		for i := range out {
			out[i] = float64(HalfToFloat32(binary.LittleEndian.Uint16(t.Data[2*i:])))
		}
		return out, nil
	case BFloat16:
		out := make([]float64, t.NumElements())
		for i := range out {
			out[i] = float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(t.Data[2*i:])) << 16))
		}
		return out, nil
	}
	ints, err := t.Int64s()
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(ints))
	for i, v := range ints {
		out[i] = float64(v)
		if t.DType == Uint64 {
			out[i] = float64(uint64(v)) // stored by its bits
		}
	}
	return out, nil
}

// NewInt64Tensor builds an i64 tensor; shape nil means a 1-D tensor of len(v).
func NewInt64Tensor(name string, shape []int64, v []int64) *Tensor {
	if shape == nil {
		shape = []int64{int64(len(v))}
	}
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return &Tensor{Name: name, DType: Int64, Shape: shape, Data: b}
}

// NewFloat32Tensor builds an f32 tensor from values in row-major order.
func NewFloat32Tensor(name string, shape []int64, v []float32) *Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return &Tensor{Name: name, DType: Float32, Shape: shape, Data: b}
}

// HalfToFloat32 converts an IEEE 754 binary16 value.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		for mant&0x400 == 0 {
			mant <<= 1
			exp--
		}
		exp++
		mant &= 0x3ff
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// Float32ToHalf converts to IEEE binary16 with round-to-nearest-even.
func Float32ToHalf(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int32(bits>>23) & 0xff
	mant := bits & 0x7fffff
	if exp == 0xff { // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - e)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, which is still correct
	}
	return sign | uint16(half)
}

// Float32ToBFloat16 converts to bfloat16 with round-to-nearest-even.
func Float32ToBFloat16(f float32) uint16 {
	bits := math.Float32bits(f)
	if f != f {
		return uint16(bits>>16) | 0x40
	}
	bits += 0x7fff + (bits>>16)&1
	return uint16(bits >> 16)
}
