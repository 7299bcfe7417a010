package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The activation family: the elementwise activations are priced from
// their MathCost trait; the softmax-like ops and Einsum are listed here.
func init() {
	optable.Add(&costTable, map[string]costRule{
		// max, exp, sum, log and subtract per element.
		"LogSoftmax": perOutput(softmaxCost+4, "max, exp, sum, log and subtract per element"),
		"Hardmax":    perOutput(2, "a compare and a write per element"),
		"Einsum":     {detail: "one multiply-add per point of the index space (the product of every label's size)", work: einsumCost},
	})
}

// einsumCost is the size of the equation's index space: the generic loop
// visits every combination of every label once. Unknown sizes count as 1.
func einsumCost(x costArgs, c *NodeCost) {
	c.FLOPs = numelOf(x.out)
	eq, err := canon.ParseEinsum(x.n.Op.(*canon.Einsum).Equation)
	if err != nil {
		return
	}
	ranks := make([]int, len(x.n.Inputs))
	shapes := make([][]int64, len(x.n.Inputs))
	for i := range x.n.Inputs {
		v := x.input(i)
		if !v.RankKnown {
			return
		}
		ranks[i] = len(v.Shape)
		for _, d := range v.Shape {
			shapes[i] = append(shapes[i], d.Size)
		}
	}
	p, err := eq.Bind(ranks)
	if err != nil {
		return
	}
	sizes, err := p.Sizes(shapes)
	if err != nil {
		return
	}
	n := 1.0
	for _, s := range sizes {
		if s >= 0 {
			n *= float64(s)
		}
	}
	c.FLOPs = n
}
