package torchexport

func init() {
	opLacks["SequenceMap"] = "model.py does not write a Python loop around a subgraph yet; export the model to ONNX"
}
