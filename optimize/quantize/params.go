package quantize

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Range is the calibrated range of a float tensor.
type Range struct {
	Min, Max float32
}

// qparams are the scale and zero point of a per-tensor quantization.
type qparams struct {
	scale float32
	zero  int64
	dtype canon.DType
}

// activationParams maps r onto the integer type d as ONNX Runtime does:
// the range is widened to include 0 (so that 0 is exact, as padding
// needs), uint8 asymmetric, int8 symmetric around 0.
func activationParams(r Range, d canon.DType) qparams {
	lo, hi := float64(min(r.Min, 0)), float64(max(r.Max, 0))
	qmin, qmax := canon.QuantRange(d)
	if d == canon.Int8 {
		a := math.Max(-lo, hi)
		lo, hi = -a, a
		qmin = -127
	}
	scale := float32((hi - lo) / float64(qmax-qmin))
	if scale == 0 || math.IsInf(float64(scale), 0) || math.IsNaN(float64(scale)) {
		return qparams{scale: 1, zero: 0, dtype: d}
	}
	zero := int64(0)
	if d == canon.Uint8 {
		zero = int64(math.RoundToEven(float64(qmin) - lo/float64(scale)))
		zero = min(max(zero, qmin), qmax)
	}
	return qparams{scale: scale, zero: zero, dtype: d}
}

// dequantRange is the float range a quantized tensor can represent.
func (p qparams) dequantRange() (lo, hi float64) {
	qmin, qmax := canon.QuantRange(p.dtype)
	return float64(p.scale) * float64(qmin-p.zero), float64(p.scale) * float64(qmax-p.zero)
}

// symmetricScale is the int8 scale of values whose largest magnitude is
// absMax: absMax/127, so that -absMax and absMax are both representable.
func symmetricScale(absMax float64) float32 {
	s := float32(absMax / 127)
	if s == 0 || math.IsInf(float64(s), 0) || math.IsNaN(float64(s)) {
		return 1
	}
	return s
}

// quantizeValue rounds x/scale half to even and saturates, as
// QuantizeLinear does.
func quantizeValue(x float64, scale float32, zero, qmin, qmax int64) int64 {
	q := int64(math.RoundToEven(x/float64(scale))) + zero
	return min(max(q, qmin), qmax)
}
