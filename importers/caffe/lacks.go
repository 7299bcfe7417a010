package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

// lacks lists the canonical kinds no BVLC Caffe layer reads as. Caffe's
// layer set is closed (BVLC Caffe 1.0); a new canonical kind belongs here
// unless a layer above produces it.
var lacks = map[string]string{}

func init() {
	// group adds kinds with one reason; optable.Add refuses a kind listed
	// twice (here or in another file's table).
	group := func(why string, kinds ...string) {
		m := make(map[string]string, len(kinds))
		for _, k := range kinds {
			m[k] = why
		}
		optable.Add(&lacks, m)
	}
	group("Caffe blobs are float only: it has no integer, boolean or bitwise layers",
		"And", "Or", "Xor", "Not", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "Cast",
		"Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "IsInf", "IsNaN", "Where", "Mod")
	group("Caffe shapes are fixed when the net is built: it has no shape-computing or data-dependent layers",
		"Shape", "Size", "ConstantOfShape", "Range", "EyeLike", "NonZero", "Unique", "Compress", "Expand", "Constant")
	group("BVLC Caffe has no such layer (its Python layer runs code that is not in the files)",
		"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cos", "Cosh", "Sin", "Sinh", "Tan", "Ceil", "Floor", "Round",
		"Erf", "Neg", "Reciprocal", "Sign", "Sqrt", "Celu", "Selu", "Gelu", "HardSigmoid", "HardSwish", "Hardmax", "Mish",
		"Shrink", "ThresholdedRelu", "Softsign", "LogSoftmax", "Min", "Mean", "Sum", "MatMul", "Gather", "GatherElements",
		"GatherND", "ScatterElements", "ScatterND", "OneHot", "Trilu", "CumSum", "TopK", "ArgMin", "Einsum",
		"DepthToSpace", "SpaceToDepth", "ReverseSequence", "Pad", "Resize", "Transpose", "Squeeze", "Unsqueeze",
		"Div", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMin",
		"ReduceProd")
	group("Caffe's layer for it (ArgMax, Tile, Reduction) is not read yet",
		"ArgMax", "Tile", "ReduceL1", "ReduceSum", "ReduceSumSquare", "ReduceMean")
	group("Caffe's Dropout is read as the identity: inference drops nothing", "Dropout")
	group("BVLC Caffe has no quantized or integer layers", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger")
	group("Caffe's LSTM and RNN layers (gated by a sequence-continuation input) are not read yet", "LSTM", "RNN")
	group("BVLC Caffe has no GRU layer", "GRU")
	group("BVLC Caffe has no such layer", "LayerNormalization", "GroupNormalization",
		"InstanceNormalization", "RMSNormalization", "LpNormalization", "LpPool", "GlobalLpPool", "MaxUnpool")
	group("BVLC Caffe has no grid sampling or folding layer", "GridSample", "AffineGrid", "Col2Im")
}
