package torchexport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&opLacks, map[string]string{
		"QuantizeLinear":        "not written yet",
		"DequantizeLinear":      "not written yet",
		"DynamicQuantizeLinear": "not written yet",
		"QLinearConv":           "not written yet",
		"QLinearMatMul":         "not written yet",
		"ConvInteger":           "not written yet",
		"MatMulInteger":         "not written yet",
	})
}
