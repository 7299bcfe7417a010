package tfliteexport

import "github.com/modelbridge/modelbridge/canon"

// lacks lists the canonical kinds the TFLite exporter refuses, and why. A
// new canonical kind belongs here unless a writer handles it.
var lacks = map[string]string{}

func init() {
	group := func(why string, kinds ...string) {
		for _, k := range kinds {
			lacks[k] = why
		}
	}
	group("TFLite has no builtin for it and modelbridge writes no exact expansion yet",
		"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cosh", "Sinh", "Tan", "Erf", "Softplus", "Softsign",
		"Selu", "Mish", "ThresholdedRelu", "Shrink", "Hardmax", "Einsum", "Mean", "Mod", "IsNaN", "IsInf",
		"BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "Trilu", "EyeLike", "ConstantOfShape", "Size",
		"Compress", "Unique", "NonZero", "ReverseSequence", "OneHot", "ScatterElements", "ScatterND", "GatherElements",
		"GatherND", "Where", "Expand", "Tile", "Range", "Shape", "CumSum", "TopK", "ArgMax", "ArgMin",
		"Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "And", "Or", "Xor", "Not",
		"DepthToSpace", "SpaceToDepth", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare")
	group("TFLite has no normalization builtin of this kind; modelbridge folds only batch norm",
		"InstanceNormalization", "LpNormalization",
		"MeanVarianceNormalization", "LRN")
	group("TFLite has no such pooling or sampling builtin",
		"LpPool", "GlobalLpPool", "MaxUnpool", "MaxRoiPool", "RoiAlign", "GridSample", "AffineGrid", "Col2Im",
		"NonMaxSuppression", "DeformConv")
	group("TFLite's sequence RNN builtins are not written (only UNIDIRECTIONAL_SEQUENCE_LSTM)", "GRU", "RNN")
	group("TFLite's signal builtins (RFFT2D) are not written", "DFT", "STFT", "HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix")
	group("quantized graphs are not written to TFLite: only float32 and float16 models",
		"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger")
	group("control flow is not written to TFLite (its WHILE and IF take subgraphs, which the exporter does not write)", "If", "Loop", "Scan")
	group("constants are tensor buffers in TFLite: a Constant node is written as its value", "Constant")
}

// Ops is the exporter's coverage: the canonical kinds it writes, with the
// TFLite ops they become, and for the others why not.
func Ops() canon.Coverage {
	cov := canon.Coverage{}
	for _, d := range canon.Ops() {
		if _, ok := writers[d.Kind]; !ok && d.Decompose != nil {
			cov[d.Kind] = canon.Handles("written as canon's expansion into other ops (see the op's Decompose), each of those written or refused by name")
		}
	}
	for k, w := range writers {
		cov[k] = canon.Handles(w.detail)
	}
	for k, why := range lacks {
		if _, ok := writers[k]; !ok {
			cov[k] = canon.Lacks(why)
		}
	}
	return cov
}
