package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

// The loss family: one gather, multiply and add per target element.
func init() {
	optable.Add(&costTable, map[string]costRule{
		"NegativeLogLikelihoodLoss": {detail: "a gather, a multiply and an add per target element", work: func(x costArgs, c *NodeCost) {
			c.FLOPs = 2 * numelOf(x.input(1))
		}},
	})
}
