package torchscript

import "github.com/modelbridge/modelbridge/canon"

// nllNode writes aten::nll_loss on batched scores (N, C, d1...) with
// targets (N, d1...) as one NegativeLogLikelihoodLoss node, which means
// what ATen computes: the weight of each target (1 without weights), 0
// for ignore_index, and mean dividing by the summed weights of the targets
// not ignored. Unbatched (C) scores and malformed operands (ok false) are
// left to the expansion, which handles or refuses them.
func (e *expander) nllNode(x, t, w *tensorVal, red, ignore int64) (*tensorVal, bool) {
	reductions := map[int64]canon.LossReduction{0: canon.LossNone, 1: canon.LossMean, 2: canon.LossSum}
	r, known := reductions[red]
	if !known || e.err != nil {
		return nil, false
	}
	xr, tr := e.rank(x), e.rank(t)
	if e.err != nil || xr < 2 || tr != xr-1 {
		e.err = nil // the expansion reports the problem
		return nil, false
	}
	op := &canon.NegativeLogLikelihoodLoss{Reduction: r, IgnoreIndex: ignore, HasIgnoreIndex: true}
	ins := []*tensorVal{x, e.classTarget(t)}
	if w != nil {
		ins = append(ins, e.cast(w, e.dt))
	}
	return e.emit(op, ins...), true
}
