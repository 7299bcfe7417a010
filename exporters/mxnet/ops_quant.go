package mxnetexport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	const why = "MXNet's quantized ops take run-time min/max ranges and round half away from zero; ONNX's scale, zero point and half-to-even rounding have no MXNet form"
	optable.Add(&lacks, map[string]string{
		"QuantizeLinear":        why,
		"DequantizeLinear":      why,
		"DynamicQuantizeLinear": why,
		"QLinearConv":           why,
		"QLinearMatMul":         why,
		"ConvInteger":           "MXNet's convolution is floating point only and its quantized convolution has no zero points",
		"MatMulInteger":         "MXNet's dot is floating point only and its quantized fully connected op has no zero points",
	})
}
