package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

// Dynamically quantized linear layers are read (ops_qlinear_dynamic.go);
// the recurrent ones are refused by name: they choose the input's scale
// and zero point at every step and run the gates in the engine's own
// arithmetic, which is not reproduced here.
var dynamicLinearKinds = []string{"ReduceMin", "ReduceMax", "Clip", "Cast", "Sub", "Div", "Greater", "Less", "Where", "Mul", "Abs", "Round", "Add", "MatMulInteger"}

func init() {
	const why = "dynamic quantized recurrent layers choose the input's scale and zero point at run time at every step and compute the gates in the engine's own arithmetic, which is not reproduced exactly here: quantize the model statically (torch.ao.quantization prepare/convert with calibration) or convert the float model"
	optable.Add(&opTable, map[string]opEntry{
		"ops.quantized.linear_dynamic":      entry(opQuantizedLinearDynamic(false), dynamicLinearKinds...),
		"ops.quantized.linear_relu_dynamic": entry(opQuantizedLinearDynamic(true), dynamicLinearKinds...),
		"ops.quantized.linear_dynamic_fp16": entry(refuseOp("float16 dynamic linear layers (weights packed as float16) are not read: convert the float model")),
		"torch.quantized_lstm":              entry(refuseOp(why)),
		"torch.quantized_gru":               entry(refuseOp(why)),
	})
}
