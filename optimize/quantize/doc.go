// Package quantize makes int8 models from float ones, in the QDQ form
// ONNX Runtime runs with integer kernels: QuantizeLinear/DequantizeLinear
// pairs around the ops it has quantized kernels for (Conv, Gemm-shaped
// Linear, MatMul with a constant weight, Add, Mul, pooling, Concat,
// Resize), per-channel symmetric int8 weights, int32 biases, per-tensor
// uint8 (or int8) activations whose ranges come from running the float
// model in the interpreter over calibration inputs (Static), or, for
// matrix products, activations quantized at run time (Dynamic).
//
// Every other op stays float and reads the dequantized values. Relu and
// Clip after a quantized op are folded into the quantization of its output
// when the quantized range clamps exactly as they do.
package quantize
