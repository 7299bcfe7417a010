package mxnetimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	const kinds = "MXNet's quantized ops carry their ranges as run-time min/max tensors, not ONNX's scale and zero point"
	optable.Add(&lacks, map[string]string{
		"QuantizeLinear":        kinds,
		"DequantizeLinear":      kinds,
		"DynamicQuantizeLinear": kinds,
		"QLinearConv":           kinds,
		"QLinearMatMul":         kinds,
		"ConvInteger":           "MXNet's _contrib_quantized_conv outputs int32 with run-time min/max ranges and no zero points",
		"MatMulInteger":         "MXNet's _contrib_quantized_fully_connected outputs int32 with run-time min/max ranges and no zero points",
	})
	optable.Add(&unsupported, map[string]string{
		"_contrib_quantize":                  "its scale comes from run-time min/max tensors and it rounds half away from zero, which QuantizeLinear (half to even) does not",
		"_contrib_quantize_v2":               "it rounds half away from zero (and calibrates its int8 scale from the data or min/max ranges), which QuantizeLinear (half to even) does not",
		"_contrib_dequantize":                "its scale is computed at run time from min/max range tensors, which DequantizeLinear's fixed scale input cannot express exactly",
		"_contrib_quantized_conv":            "quantized MXNet ops pass int32 accumulators with run-time min/max ranges, which the canonical integer ops do not hold",
		"_contrib_quantized_fully_connected": "quantized MXNet ops pass int32 accumulators with run-time min/max ranges, which the canonical integer ops do not hold",
		"_contrib_requantize":                "quantized MXNet ops pass int32 accumulators with run-time min/max ranges, which the canonical integer ops do not hold",
	})
}
