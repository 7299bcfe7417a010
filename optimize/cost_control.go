package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	// Which branch runs, and how often a body runs, is known at run time
	// only: the node is priced by the bytes it moves.
	const why = "priced as one operation per output element and the bytes it moves: its subgraphs' work depends on run-time data"
	optable.Add(&costTable, map[string]costRule{
		"If":   perOutput(1, why),
		"Loop": perOutput(1, why),
		"Scan": perOutput(1, why),
	})
}
