package mxnetexport

func init() {
	const why = "MXNet 1.x has no op of ONNX's ai.onnx.ml domain"
	for _, k := range []string{"Binarizer", "ArrayFeatureExtractor", "LabelEncoder", "TreeEnsemble"} {
		lacks[k] = why
	}
}
