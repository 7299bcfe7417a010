package caffeimport

func init() {
	const why = "BVLC Caffe has no layer for ONNX's ai.onnx.ml ops"
	for _, k := range []string{"Binarizer", "ArrayFeatureExtractor", "LabelEncoder", "TreeEnsemble"} {
		lacks[k] = why
	}
}
