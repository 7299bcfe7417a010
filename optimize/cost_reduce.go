package optimize

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The reduce family: every reduction reads each input element once
// (L2, LogSum and LogSumExp add a few operations per element); TopK pays a
// log-factor for its selection along the axis.
func init() {
	rules := map[string]costRule{
		"ArgMax": perInput("one comparison per input element"),
		"ArgMin": perInput("one comparison per input element"),
		"CumSum": perInput("one add per input element"),
		"TopK": {detail: "a heap selection: about log2(k) comparisons per input element", work: func(x costArgs, c *NodeCost) {
			k := 2.0
			if op := x.n.Op.(*canon.TopK); op.K > 1 {
				k = float64(op.K)
			}
			c.FLOPs = numelOf(x.input(0)) * math.Log2(k+1)
		}},
	}
	for _, fn := range canon.ReduceFns() {
		rules[fn.String()] = perInput("one operation per input element")
	}
	optable.Add(&costTable, rules)
}
