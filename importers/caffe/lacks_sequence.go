package caffeimport

func init() {
	for _, k := range []string{"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional", "OptionalHasElement", "OptionalGetElement"} {
		lacks[k] = "Caffe blobs are tensors: it has no sequence or optional values"
	}
}
