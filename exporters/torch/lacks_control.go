package torchexport

func init() {
	const why = "model.py does not write Python if/for around subgraphs yet; export the model to ONNX"
	for _, k := range []string{"If", "Loop", "Scan"} {
		opLacks[k] = why
	}
}
