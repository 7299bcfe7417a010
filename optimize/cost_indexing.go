package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

// The indexing family moves data: one index computation and copy per
// element written (scatters copy the data, then write each update).
func init() {
	optable.Add(&costTable, map[string]costRule{
		"GatherElements":  movement,
		"GatherND":        movement,
		"ScatterElements": movement,
		"ScatterND":       movement,
		"OneHot":          movement,
		"Compress":        movement,
		"Trilu":           movement,
	})
}
