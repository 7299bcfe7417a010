package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

// The convert family: Cast and the comparisons are elementwise and priced
// from their MathCost trait; Where selects per element; Expand and Tile copy data; Size reads
// only the input's shape.
func init() {
	optable.Add(&costTable, map[string]costRule{
		"Where":  perOutput(1, "a select per output element"),
		"Expand": movement,
		"Tile":   movement,
		"Size": {detail: "one count written as a scalar; the input's data is not read", work: func(x costArgs, c *NodeCost) {
			c.FLOPs, c.Bytes = 1, 8
		}},
	})
}
