package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&costTable, map[string]costRule{
		"Attention": {detail: "per query head and query: 2·keys·head size FLOPs for the scores, ~6 per score for scale, mask and softmax, 2·keys·value head size for the weighted sum",
			work: attentionCost},
		"RotaryEmbedding": perOutput(3, "two products and a sum per rotated element"),
	})
}

func attentionCost(x costArgs, c *NodeCost) {
	op, ok := x.n.Op.(*canon.Attention)
	if !ok {
		return
	}
	q, k, v := x.input(canon.AttnQ), x.input(canon.AttnK), x.input(canon.AttnV)
	if !q.RankKnown {
		return
	}
	var rows, keys, d, dv float64 // rows: batch·heads·queries
	if len(q.Shape) == 4 {
		rows = dimOf(q, 0) * dimOf(q, 1) * dimOf(q, 2)
		keys, d, dv = dimOf(k, 2), dimOf(q, 3), dimOf(v, 3)
	} else {
		h, kvh := float64(max(op.QNumHeads, 1)), float64(max(op.KVNumHeads, 1))
		rows = dimOf(q, 0) * h * dimOf(q, 1)
		keys, d, dv = dimOf(k, 1), dimOf(q, 2)/h, dimOf(v, 2)/kvh
	}
	if len(x.n.Inputs) > canon.AttnPastKey && x.n.Inputs[canon.AttnPastKey] != "" {
		keys += dimOf(x.input(canon.AttnPastKey), 2)
	}
	c.FLOPs = rows * keys * (2*d + 6 + 2*dv)
}
