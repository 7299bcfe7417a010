package torchscript

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// A scripted if whose branches give a value different ranks (torchvision's
// BoxCoder.decode reshapes to three axes only when there are boxes) makes
// an If output of unknown rank. The importer needs ranks for most
// operators, so the first that reads such a value refuses it: its error
// then names the if and the two ranks.

// noteRankSplits records, for each output of an If at where whose branches
// give tensors of different known ranks, why its rank is unknown.
func (b *builder) noteRankSplits(where string, thenG, elseG *canon.Graph, outs []*tensorVal) {
	for i, o := range outs {
		if i >= len(thenG.Outputs) || i >= len(elseG.Outputs) {
			return
		}
		t, e := thenG.Outputs[i], elseG.Outputs[i]
		if !t.RankKnown || !e.RankKnown || len(t.Shape) == len(e.Shape) {
			continue
		}
		if b.rankWhy == nil {
			b.rankWhy = map[string]string{}
		}
		b.rankWhy[o.name] = fmt.Sprintf("its rank is %d when the if at %s takes its first branch and %d otherwise, so only a run tells it; the graph cannot compute with a value whose rank only a run tells (trace the model or export it to ONNX, which take one branch)", len(t.Shape), where, len(e.Shape))
	}
}

// explainRank adds to err, an operator's refusal of a value whose rank is
// unknown, why an argument's rank is unknown.
func (b *builder) explainRank(err error, args []value) error {
	if len(b.rankWhy) == 0 || !strings.Contains(err.Error(), "rank") {
		return err
	}
	for _, a := range args {
		if t, ok := a.(*tensorVal); ok && t.name != "" {
			if why, ok := b.rankWhy[t.name]; ok {
				op, _, _ := strings.Cut(err.Error(), ": ")
				return fmt.Errorf("%s: the rank of %s is not known at import: %s", op, t.name, why)
			}
		}
	}
	return err
}
