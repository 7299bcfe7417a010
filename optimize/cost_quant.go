package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&costTable, map[string]costRule{
		"QuantizeLinear":        perOutput(4, "a divide, a round, an add and a clamp per element"),
		"DequantizeLinear":      perOutput(2, "a subtract and a multiply per element"),
		"DynamicQuantizeLinear": perOutput(6, "a min/max pass, then a divide, a round, an add and a clamp per element"),
		"QLinearConv": {detail: "2·N·C_out·spatial·C_in/group·kernel integer operations, plus requantization per output",
			work: func(x costArgs, c *NodeCost) { intConvCost(x, c, 3) }},
		"ConvInteger": {detail: "2·N·C_out·spatial·C_in/group·kernel integer operations",
			work: func(x costArgs, c *NodeCost) { intConvCost(x, c, 1) }},
		"MatMulInteger": {detail: "2·output elements·K integer operations",
			work: func(x costArgs, c *NodeCost) { intMatMulCost(x, c, 0, 0) }},
		"QLinearMatMul": {detail: "2·output elements·K integer operations, plus requantization per output",
			work: func(x costArgs, c *NodeCost) { intMatMulCost(x, c, 0, 4) }},
	})
}

// intConvCost prices an integer convolution whose weight is input w like
// the float Conv's products (no packed GEMM: a direct kernel).
func intConvCost(x costArgs, c *NodeCost, w int) {
	wv, out := x.input(w), x.out
	k := 1.0
	for i := 1; wv.RankKnown && i < len(wv.Shape); i++ {
		k *= dimOf(wv, i)
	}
	c.FLOPs = 2*numelOf(out)*k + requantCost(x.n, numelOf(out))
	c.TileFLOPs = c.FLOPs
}

// intMatMulCost prices an integer product of input a with K columns.
func intMatMulCost(x costArgs, c *NodeCost, a int, requant int) {
	av := x.input(a)
	k := 1.0
	if av.RankKnown && len(av.Shape) > 0 {
		k = dimOf(av, len(av.Shape)-1)
	}
	c.FLOPs = 2 * numelOf(x.out) * k
	if requant > 0 {
		c.FLOPs += requantCost(x.n, numelOf(x.out))
	}
}

// requantCost: a multiply, a round, an add and a clamp per output of the
// QLinear ops.
func requantCost(n *canon.Node, outputs float64) float64 {
	switch n.Op.(type) {
	case *canon.QLinearConv, *canon.QLinearMatMul:
		return 4 * outputs
	}
	return 0
}
