package torchexport

func init() {
	const why = "model.py does not write Python lists or Optionals for sequence and optional values yet; export the model to ONNX"
	for _, k := range []string{"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional", "OptionalHasElement", "OptionalGetElement"} {
		opLacks[k] = why
	}
}
