package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	// aten::quantize_per_tensor/per_channel return quantized (qint8,
	// quint8) tensors, and their vectorized kernels multiply by 1/scale
	// where ONNX divides by scale; fake_quantize_* likewise computes
	// x·(1/scale). Neither matches QuantizeLinear bit for bit.
	const why = "aten::quantize_per_tensor, quantize_per_channel and fake_quantize_* multiply by 1/scale (ONNX divides by scale) and yield quantized tensor types the IR does not hold"
	optable.Add(&opLacks, map[string]string{
		"QuantizeLinear":        why,
		"DequantizeLinear":      "aten::dequantize reads a quantized (qint8/quint8) tensor, a type the IR does not hold",
		"DynamicQuantizeLinear": "no aten operator computes ONNX's DynamicQuantizeLinear (aten::_choose_qparams_per_tensor picks other parameters)",
		"QLinearConv":           "quantized::conv2d takes packed parameters (ConvPackedParamsBase), which are not read",
		"QLinearMatMul":         "quantized::linear and quantized::matmul take packed parameters or quantized tensors, which are not read",
		"ConvInteger":           "no aten operator convolves integer tensors",
		"MatMulInteger":         "no aten operator with zero points multiplies integer matrices",
	})
}
