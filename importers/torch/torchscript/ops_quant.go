package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.fake_quantize_per_tensor_affine": entry(opFakeQuantize, "Mul", "Round", "Add", "Clip", "Sub"),
	})
	// aten::quantize_per_tensor and quantize_per_channel return quantized
	// (qint8, quint8) tensors, a type the IR does not hold, and their
	// kernels multiply by 1/scale where ONNX divides by scale;
	// aten::dequantize's vectorized kernel computes x·scale - zp·scale with
	// a fused multiply-add, not (x - zp)·scale.
	const why = "aten::quantize_per_tensor and quantize_per_channel multiply by 1/scale (ONNX divides by scale), which rounds differently; quantize_per_tensor (read through int_repr and dequantize) and the fake_quantize ops are read as the float ops they compute"
	optable.Add(&opLacks, map[string]string{
		"QuantizeLinear":        why,
		"DequantizeLinear":      "aten::dequantize is read only on a quantize_per_tensor result, as (q - zp)·scale in float ops (PyTorch's vectorized kernel uses a fused multiply-add, which can differ in the last bit); quantized tensors from elsewhere (inputs, weights) are a type the IR does not hold",
		"DynamicQuantizeLinear": "no aten operator computes ONNX's DynamicQuantizeLinear (aten::_choose_qparams_per_tensor picks other parameters)",
		"QLinearConv":           "quantized::conv2d (onednn) adds the float bias scaled into the accumulator domain and multiplies by a float32 multiplier, which QLinearConv's int32 bias rounds differently: it is read as ConvInteger and float32 requantization",
		"QLinearMatMul":         "quantized::linear (onednn) adds a float bias before requantizing, which QLinearMatMul lacks: it is read as MatMulInteger and float32 requantization",
	})
}

// opFakeQuantize reads aten::fake_quantize_per_tensor_affine as the float
// ops PyTorch's CPU kernel computes: with inv = 1.0f/scale,
// y = (clamp(zp + nearbyint(x·inv), qmin, qmax) - zp)·scale, every step in
// float32 (the rounding is half to even; the integers involved are exact).
// It is not QuantizeLinear, which divides by the scale.
func opFakeQuantize(c *opCall) (value, error) {
	x, err := c.bindInput("input", "scale", "zero_point", "quant_min", "quant_max")
	if err != nil {
		return nil, err
	}
	scale, err := c.float(1)
	if err != nil {
		return nil, c.errf("scale must be a constant float (a scale tensor is not read): %v", err)
	}
	zp, err := c.int(2)
	if err != nil {
		return nil, c.errf("zero_point must be a constant int (a zero-point tensor is not read): %v", err)
	}
	qmin, err := c.int(3)
	if err != nil {
		return nil, err
	}
	qmax, err := c.int(4)
	if err != nil {
		return nil, err
	}
	if dt := x.info.DType; dt != canon.Float32 && dt != canon.Undefined {
		return nil, c.errf("input is %s; only float32 fake quantization is read", dt)
	}
	sc := float32(scale)
	if !(sc > 0) || math.IsInf(float64(sc), 0) {
		return nil, c.errf("scale %g must be a positive finite float32", scale)
	}
	if qmin > qmax || qmin < -(1<<24) || qmax > 1<<24 || zp < qmin || zp > qmax {
		return nil, c.errf("quant_min %d, quant_max %d and zero_point %d must satisfy quant_min <= zero_point <= quant_max within ±2^24", qmin, qmax, zp)
	}
	k := func(v float32) *tensorVal {
		return &tensorVal{konst: canon.NewFloat32Tensor("", []int64{}, []float32{v})}
	}
	b := c.b()
	m, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, x, k(1/sc))
	if err != nil {
		return nil, err
	}
	r, err := b.emit1(c.scope, &canon.Math{Fn: canon.MathRound}, m)
	if err != nil {
		return nil, err
	}
	q, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, r, k(float32(zp)))
	if err != nil {
		return nil, err
	}
	q, err = b.emit1(c.scope, &canon.Clip{Min: float32(qmin), Max: float32(qmax)}, q)
	if err != nil {
		return nil, err
	}
	d, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Sub}, q, k(float32(zp)))
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, d, k(sc))
}
