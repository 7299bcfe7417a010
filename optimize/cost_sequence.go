package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	// Sequence ops copy tensors into and out of run-time lists: priced by
	// the elements of their output (an element type's, for a sequence).
	const why = "priced as one operation per output element: it moves tensors into or out of a run-time list"
	m := map[string]costRule{}
	for _, k := range []string{"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength",
		"SplitToSequence", "ConcatFromSequence", "Optional", "OptionalHasElement", "OptionalGetElement"} {
		m[k] = perOutput(1, why)
	}
	m["SequenceMap"] = perOutput(1, "priced as one operation per output element and the bytes it moves: its body's work depends on the run-time length")
	optable.Add(&costTable, m)
}
