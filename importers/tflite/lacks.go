package tfliteimport

// lacks lists the canonical kinds the TFLite importer does not write, and
// why. A new canonical kind belongs here unless an op in opTable writes it.
var lacks = map[string]string{}

func init() {
	group := func(why string, kinds ...string) {
		for _, k := range kinds {
			lacks[k] = why
		}
	}
	group("TFLite's builtin for it is not read yet (refused by name)",
		"ArgMax", "ArgMin", "Equal", "Greater", "Less", "LessOrEqual",
		"GatherND", "SpaceToDepth", "DepthToSpace", "Squeeze", "Tile", "TopK",
		"Sum", "Unique", "ScatterND",
		"ReverseSequence", "Range", "Shape", "Not", "And", "Or", "OneHot", "CumSum", "Expand",
		"NonZero", "Reciprocal", "LRN", "LpNormalization", "LpPool", "NonMaxSuppression", "RNN", "BitShift",
		"BitwiseXor", "Unsqueeze", "Softplus", "Atan", "Hardmax")
	group("TFLite has no such builtin: converters lower or fold it before writing the file",
		"Acos", "Acosh", "Asin", "Asinh", "Atanh", "Cosh", "Sinh", "Tan", "AffineGrid", "Attention",
		"BatchNormalization", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "Celu", "Col2Im", "Compress",
		"ConstantOfShape", "Dropout", "Einsum", "EyeLike", "Flatten", "GRU", "GatherElements", "GlobalAveragePool",
		"GlobalLpPool", "GlobalMaxPool", "GridSample", "GroupNormalization", "HardSigmoid", "Identity",
		"InstanceNormalization", "IsInf", "IsNaN", "LayerNormalization", "MaxRoiPool", "MaxUnpool", "Mean",
		"MeanVarianceNormalization", "Mish", "RMSNormalization", "ReduceL1", "ReduceL2", "ReduceLogSum",
		"ReduceLogSumExp", "ReduceSumSquare", "RoiAlign", "RotaryEmbedding", "ScatterElements", "Selu", "Shrink",
		"Size", "Softsign", "ThresholdedRelu", "Trilu", "Xor", "Erf")
	group("TFLite's builtins for signal processing (RFFT2D) and its window functions are not read yet (refused by name)",
		"DFT", "STFT", "HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix")
	group("TFLite has no deformable convolution builtin", "DeformConv")
	group("constants are tensor buffers in TFLite, read as initializers", "Constant")
	group("TFLite's integer kernels rescale with fixed-point multipliers and gemmlowp rounding, which ONNX's float-rescaling quantized ops do not reproduce; the importer writes that arithmetic exactly in integer ops (ConvInteger, MatMulInteger, Mul, Div, Mod...) instead",
		"QuantizeLinear", "QLinearConv", "QLinearMatMul", "DynamicQuantizeLinear")
}
