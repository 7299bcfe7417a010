package torchexport

func init() {
	const why = "not written to model.py yet: PyTorch has no single operator for this ai.onnx.ml op"
	for _, k := range []string{"Binarizer", "ArrayFeatureExtractor", "LabelEncoder", "TreeEnsemble"} {
		opLacks[k] = why
	}
}
