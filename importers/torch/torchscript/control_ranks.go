package torchscript

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// A scripted if whose branches give a value different ranks (torchvision's
// BoxCoder.decode reshapes to three axes only when there are boxes) makes
// an If output of unknown rank. The importer needs ranks for most
// operators, so the first that reads such a value either has the import
// split the if (control_fork.go: the code after it is imported once in each
// branch) or, where it cannot, refuses it naming the if and the two ranks.

// noteRankSplits records, for each output of the If at where (the
// ordinal-th run-time if) whose branches give tensors of different known
// ranks, why its rank is unknown.
func (in *evaluator) noteRankSplits(where string, ordinal int, thenG, elseG *canon.Graph, outs []*tensorVal) {
	b := in.b
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
		if in.forks != nil && ordinal >= 0 {
			in.forks.splits[o.name] = rankSplit{ordinal: ordinal, where: where, value: o.name, thenRank: len(t.Shape), elseRank: len(e.Shape), splittable: b.subDepth == 0}
		}
	}
}

// rankForkError stops an import at the first operator that needs the rank
// of a value a rank-changing if made: the import is run again with that if
// split (read_fork.go).
type rankForkError struct {
	split rankSplit
	op    error
}

func (e *rankForkError) Error() string {
	return fmt.Sprintf("%v (the import splits the if at %s, whose branches give %s ranks %d and %d, and imports the code after it once in each branch)", e.op, e.split.where, e.split.value, e.split.thenRank, e.split.elseRank)
}

// explainRank adds to err, an operator's refusal of a value whose rank is
// unknown, why an argument's rank is unknown; when the if that made it can
// be split, the error asks for that instead.
func (in *evaluator) explainRank(err error, args []value) error {
	b := in.b
	if len(b.rankWhy) == 0 || !strings.Contains(err.Error(), "rank") {
		return err
	}
	for _, a := range args {
		t, ok := a.(*tensorVal)
		if !ok || t.name == "" {
			continue
		}
		why, ok := b.rankWhy[t.name]
		if !ok {
			continue
		}
		op, _, _ := strings.Cut(err.Error(), ": ")
		if in.forks != nil {
			if s, ok := in.forks.splits[t.name]; ok {
				switch {
				case !s.splittable:
					why += "; the if lies inside a loop body or another run-time if's branch, so the code after it cannot be imported once per branch"
				case len(in.forks.take) >= maxRankForks:
					why += fmt.Sprintf("; %d rank-changing ifs on one path are split already (each doubles the code after it), and this one would be one more", len(in.forks.take))
				default:
					s := s
					in.forks.request = &s
					return &rankForkError{split: s, op: err}
				}
			}
		}
		return fmt.Errorf("%s: the rank of %s is not known at import: %s", op, t.name, why)
	}
	return err
}
