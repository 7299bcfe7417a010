package mxnetexport

func init() {
	const why = "MXNet symbols pass NDArrays only: a sequence or an optional value cannot be written (export the model to ONNX)"
	for _, k := range []string{"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional", "OptionalHasElement", "OptionalGetElement"} {
		lacks[k] = why
	}
}
