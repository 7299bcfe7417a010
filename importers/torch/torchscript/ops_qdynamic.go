package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

// Dynamically quantized layers (torch.ao.quantization.quantize_dynamic) are
// refused by name: they choose the input's scale and zero point at run
// time from its range (in double precision, with a nudged zero point) and
// return float32 from the engine's own accumulation, an arithmetic this
// importer does not reproduce exactly.
func init() {
	const why = "dynamic quantization chooses the input's scale and zero point at run time from its range and returns float32 from the engine's own accumulation, which is not reproduced exactly here: quantize the model statically (torch.ao.quantization prepare/convert with calibration) or convert the float model"
	optable.Add(&opTable, map[string]opEntry{
		"ops.quantized.linear_dynamic":      entry(refuseOp(why)),
		"ops.quantized.linear_relu_dynamic": entry(refuseOp(why)),
		"ops.quantized.linear_dynamic_fp16": entry(refuseOp("float16 dynamic linear layers (weights packed as float16) are not read: convert the float model")),
		"torch.quantized_lstm":              entry(refuseOp(why)),
		"torch.quantized_gru":               entry(refuseOp(why)),
	})
}
