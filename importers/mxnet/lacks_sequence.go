package mxnetimport

func init() {
	const why = "MXNet symbols pass NDArrays only: no MXNet op makes a sequence or an optional value"
	for _, k := range []string{"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional", "OptionalHasElement", "OptionalGetElement"} {
		lacks[k] = why
	}
}
