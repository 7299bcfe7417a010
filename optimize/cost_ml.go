package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The ai.onnx.ml ops: one comparison, copy or table lookup per element.
func init() {
	optable.Add(&costTable, map[string]costRule{
		"Binarizer":             perOutput(1, "one comparison per element"),
		"ArrayFeatureExtractor": perOutput(1, "one copy per selected element"),
		"LabelEncoder":          perInput("one table lookup per element"),
		// A row walks each tree: at most its node count in comparisons.
		"TreeEnsemble": {detail: "per row, one comparison per node of each tree at most",
			work: func(x costArgs, c *NodeCost) {
				op := x.n.Op.(*canon.TreeEnsemble)
				rows := 1.0
				if s := x.input(0); s.RankKnown && len(s.Shape) > 0 && s.Shape[0].Known() {
					rows = float64(s.Shape[0].Size)
				}
				c.FLOPs = rows * float64(len(op.Modes)+len(op.TreeRoots))
			}},
	})
}
