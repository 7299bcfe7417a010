package tfliteimport

func init() {
	const why = "TFLite tensors are dense arrays: no TFLite builtin makes a sequence or an optional value"
	for _, k := range []string{"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional", "OptionalHasElement", "OptionalGetElement"} {
		lacks[k] = why
	}
}
