package quantize

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

func float32s(t *canon.Tensor) ([]float32, error) {
	if t.DType != canon.Float32 {
		return nil, fmt.Errorf("tensor %q is %s, not float32", t.Name, t.DType)
	}
	if err := t.CheckData(); err != nil {
		return nil, err
	}
	n := len(t.Data) / 4
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return out, nil
}

func intTensor(name string, d canon.DType, shape []int64, v []int64) *canon.Tensor {
	size := 1
	switch d {
	case canon.Int32:
		size = 4
	case canon.Int16, canon.Uint16:
		size = 2
	}
	b := make([]byte, size*len(v))
	for i, x := range v {
		switch size {
		case 1:
			b[i] = byte(int8(x))
			if d == canon.Uint8 {
				b[i] = byte(uint8(x))
			}
		case 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
		case 4:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(x)))
		}
	}
	return &canon.Tensor{Name: name, DType: d, Shape: shape, Data: b}
}

// perChannel quantizes w symmetrically to int8, one scale per index of
// axis: scale = max|w|/127 over the channel.
func perChannel(w []float32, shape []int64, axis int) (q []int64, scales []float32) {
	channels := int(shape[axis])
	inner := 1
	for _, s := range shape[axis+1:] {
		inner *= int(s)
	}
	absMax := make([]float64, channels)
	for i, v := range w {
		c := (i / inner) % channels
		absMax[c] = max(absMax[c], math.Abs(float64(v)))
	}
	scales = make([]float32, channels)
	for c := range scales {
		scales[c] = symmetricScale(absMax[c])
	}
	q = make([]int64, len(w))
	for i, v := range w {
		c := (i / inner) % channels
		q[i] = quantizeValue(float64(v), scales[c], 0, -127, 127)
	}
	return q, scales
}
