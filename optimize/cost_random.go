package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

// The random family: a generator step and a transform per draw
// (Multinomial also sums the row's weights and searches them).
func init() {
	draw := perOutput(4, "a generator step and a transform per draw")
	optable.Add(&costTable, map[string]costRule{
		"RandomUniform":     draw,
		"RandomNormal":      perOutput(8, "a generator step and a normal transform per draw"),
		"RandomUniformLike": draw,
		"RandomNormalLike":  perOutput(8, "a generator step and a normal transform per draw"),
		"Bernoulli":         draw,
		"Multinomial": {detail: "an exp per class and a search of the row's cumulative weights per draw", work: func(x costArgs, c *NodeCost) {
			in := x.input(0)
			classes := 1.0
			if in.RankKnown && len(in.Shape) == 2 && in.Shape[1].Known() {
				classes = float64(in.Shape[1].Size)
			}
			c.FLOPs = 8*numelOf(in) + classes*numelOf(x.out)
		}},
	})
}
