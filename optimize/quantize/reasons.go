package quantize

// The quantizer's own table, like a backend's: why a float-computing node
// of a kind stays float. It is keyed by canonical kind (TestReasonKinds);
// every other kind gets the default reason.

const (
	recurrentFloat = "ONNX has no standard quantized recurrent op (ONNX Runtime's DynamicQuantizeLSTM is a com.microsoft contrib op), so it stays float"
	attentionFloat = "ONNX (opset <= 17) has no quantized attention op; its matrix products stay float"
	// defaultFloat: the kinds without an entry in floatReasons.
	defaultFloat = "no integer kernel in ONNX Runtime's QDQ set; runs float on dequantized inputs"
)

// floatReasons: why a node stays float under static quantization, for the
// kinds with a reason of their own.
var floatReasons = map[string]string{
	"LSTM":      recurrentFloat,
	"GRU":       recurrentFloat,
	"RNN":       recurrentFloat,
	"Attention": attentionFloat,
	"MatMul":    "both operands are computed (no constant weight to quantize per channel)",
	"Conv":      "weight or bias not a constant float32 tensor, or Gemm alpha/beta not 1",
	"Linear":    "weight or bias not a constant float32 tensor, or Gemm alpha/beta not 1",
}

// dynamicFloatReasons: why a compute-heavy node stays float under dynamic
// quantization; kinds without an entry are ones nobody would expect
// quantized, and are not reported.
var dynamicFloatReasons = map[string]string{
	"LSTM":          recurrentFloat,
	"GRU":           recurrentFloat,
	"RNN":           recurrentFloat,
	"Attention":     attentionFloat,
	"MatMul":        "no constant 2-D float32 weight (or Gemm alpha/beta not 1)",
	"Linear":        "no constant 2-D float32 weight (or Gemm alpha/beta not 1)",
	"Conv":          "dynamic quantization covers matrix products, as ONNX Runtime's quantize_dynamic does (its ConvInteger runs slower than float Conv); use --quantize int8",
	"ConvTranspose": "dynamic quantization covers matrix products, as ONNX Runtime's quantize_dynamic does (its ConvInteger runs slower than float Conv); use --quantize int8",
}

// floatReason says why an op kind has no quantized form here.
func floatReason(kind string) string {
	if r, ok := floatReasons[kind]; ok {
		return r
	}
	return defaultFloat
}

// dynamicFloatReason says why a compute-heavy op kind stays float under
// dynamic quantization ("" for the ops nobody would expect quantized).
func dynamicFloatReason(kind string) string { return dynamicFloatReasons[kind] }
