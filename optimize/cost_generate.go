package optimize

import (
	"math"

	"github.com/modelbridge/modelbridge/internal/optable"
)

// The generate family writes each output element once (NonZero and Unique
// read every input element; Unique also sorts them).
func init() {
	optable.Add(&costTable, map[string]costRule{
		"NonZero": {detail: "one comparison per input element", work: func(x costArgs, c *NodeCost) {
			c.FLOPs = numelOf(x.input(0))
		}},
		"Unique": {detail: "a comparison sort of the input: n·log2(n) comparisons", work: func(x costArgs, c *NodeCost) {
			n := numelOf(x.input(0))
			c.FLOPs = n * math.Max(1, math.Log2(n))
		}},
		"Range":           movement,
		"ConstantOfShape": movement,
		"EyeLike":         movement,
		"DepthToSpace":    movement,
		"SpaceToDepth":    movement,
		"ReverseSequence": movement,
	})
}
