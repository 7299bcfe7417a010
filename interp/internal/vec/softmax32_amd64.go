//go:build !noasm

package vec

import "unsafe"

// rowMax32 is rowMax32Ref, with the vector maximum on rows of 16 or more
// (the sign of a zero maximum aside, which no difference x - max shows).
func rowMax32(row []float32) (float32, bool) {
	if len(row) < 16 || !(UseAVX512 || HasFMA) {
		return rowMax32Ref(row)
	}
	return rowMaxVector(row)
}

// scaleRow32 sets row[j] = float32(float64(row[j]) * s).
func scaleRow32(row []float32, s float64) {
	v := 0
	switch {
	case len(row) < 8:
	case UseAVX512:
		v = len(row) &^ 7
		scaleRowAVX512(v, unsafe.SliceData(row), s)
	case HasFMA:
		v = len(row) &^ 7
		scaleRowAVX2(v, unsafe.SliceData(row), s)
	}
	for j := v; j < len(row); j++ {
		row[j] = float32(float64(row[j]) * s)
	}
}
