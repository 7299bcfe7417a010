package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

// The linear-algebra family: an LU factorization of an m×m matrix costs
// about m³/3 multiply-adds.
func init() {
	optable.Add(&costTable, map[string]costRule{
		"Det": {detail: "an LU factorization: about m³/3 multiply-adds per m×m matrix", work: func(x costArgs, c *NodeCost) {
			m := 1.0
			if v := x.input(0); v.RankKnown && len(v.Shape) >= 2 && v.Shape[len(v.Shape)-1].Known() {
				m = float64(v.Shape[len(v.Shape)-1].Size)
			}
			c.FLOPs = numelOf(x.out) * m * m * m / 3
		}},
	})
}
