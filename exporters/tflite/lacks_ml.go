package tfliteexport

func init() {
	const why = "TFLite has no builtin of ONNX's ai.onnx.ml domain"
	for _, k := range []string{"Binarizer", "ArrayFeatureExtractor", "LabelEncoder", "TreeEnsemble"} {
		lacks[k] = why
	}
}
