package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The normalization family reads its input twice for the statistics
// (mean, then squared deviations) and once more to scale and shift; the
// pooling ops beyond Max/AveragePool price like them.
func init() {
	optable.Add(&costTable, map[string]costRule{
		"LayerNormalization":        perOutput(6, "mean, squared deviation, then a subtract, multiply and add per element"),
		"GroupNormalization":        perOutput(6, "mean, squared deviation, then a subtract, multiply and add per element"),
		"InstanceNormalization":     perOutput(6, "mean, squared deviation, then a subtract, multiply and add per element"),
		"MeanVarianceNormalization": perOutput(5, "mean, squared deviation, then a subtract and divide per element"),
		"RMSNormalization":          perOutput(4, "a square and a sum, then two multiplies per element"),
		"LpNormalization":           perOutput(3, "an absolute value or square and a sum, then a divide per element"),
		"LpPool": {detail: "a power per window tap per output element, and a root per output", work: func(x costArgs, c *NodeCost) {
			c.FLOPs = numelOf(x.out) * (4*prod(x.n.Op.(*canon.LpPool).Kernel) + 4)
		}},
		"GlobalLpPool": {detail: "a power per input element", work: func(x costArgs, c *NodeCost) { c.FLOPs = 4 * numelOf(x.input(0)) }},
		"MaxUnpool":    movement,
	})
}
