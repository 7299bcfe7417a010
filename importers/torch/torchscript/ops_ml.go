package torchscript

func init() {
	const why = "PyTorch has no operator that is this ai.onnx.ml op"
	for _, k := range []string{"Binarizer", "ArrayFeatureExtractor", "LabelEncoder", "TreeEnsemble"} {
		opLacks[k] = why
	}
}
