package torchscript

func init() {
	const why = "TorchScript lists and Optionals are not read as canonical sequences or optionals yet (a list of a fixed length is unpacked at import)"
	for _, k := range []string{"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional", "OptionalHasElement", "OptionalGetElement"} {
		opLacks[k] = why
	}
}
