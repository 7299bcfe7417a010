package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// ctcKinds are the kinds the unrolled CTC forward recursion emits.
var ctcKinds = []string{"Add", "Sub", "Mul", "Div", "Neg", "Exp", "Log", "Max", "Equal", "Less", "Greater", "Not", "And",
	"Min", "CumSum", "Where", "Cast", "Gather", "GatherElements", "Expand", "Split", "Squeeze", "Unsqueeze", "Reshape", "ReduceSum", "ReduceMean"}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.ctc_loss": entry(opCTCLoss, ctcKinds...),
	})
}

// maxCTCSteps bounds the unrolled recursion (each step is about twenty
// nodes).
const maxCTCSteps = 4096

// opCTCLoss is aten::ctc_loss(log_probs, targets, input_lengths,
// target_lengths, blank, reduction, zero_infinity) with padded targets
// (N, S) or all targets concatenated (sum of target_lengths): ATen's forward recursion over the extended label sequence
// l' = (blank, t1, blank, t2, ..., blank), unrolled over the (static)
// T steps. Per step, alpha(s) = lse(alpha(s), alpha(s-1), alpha(s-2) where
// l'(s) is a label other than l'(s-2)) + log_probs[t, l'(s)], with lse
// written as ATen does (the maximum subtracted, 0 for all -inf); a batch
// entry past its input length keeps its alpha. The loss is
// -lse(alpha(2L), alpha(2L-1)) at the entry's target length L.
func opCTCLoss(c *opCall) (value, error) {
	if err := c.bind("log_probs", "targets", "input_lengths", "target_lengths", "blank=0", "reduction=1", "zero_infinity=False"); err != nil {
		return nil, err
	}
	lp, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	tg, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	blank, err := c.int(4)
	if err != nil {
		return nil, err
	}
	red, err := c.int(5)
	if err != nil {
		return nil, err
	}
	zeroInf, err := c.bool(6)
	if err != nil {
		return nil, err
	}
	if red < 0 || red > 2 {
		return nil, c.errf("reduction %d is not one of torch's (0 none, 1 mean, 2 sum)", red)
	}
	e := newExpander(c, lp)
	il, tl := e.lengths(c, 2), e.lengths(c, 3)
	ls, ts := e.shape(lp, "log_probs"), e.shape(tg, "targets")
	if e.err != nil {
		return nil, e.err
	}
	unbatched := len(ls) == 2
	if unbatched {
		if len(ts) != 1 {
			return nil, c.errf("unbatched log_probs %v take 1-D targets, not %v", ls, ts)
		}
		lp, tg = e.unsqueeze(lp, 1), e.unsqueeze(tg, 0)
		il, tl = e.emit(&canon.Reshape{Shape: []int64{1}}, il), e.emit(&canon.Reshape{Shape: []int64{1}}, tl)
		ls, ts = []int64{ls[0], 1, ls[1]}, []int64{1, ts[0]}
	}
	if len(ls) != 3 {
		return nil, c.errf("log_probs %v must be (T, N, C) or (T, C)", ls)
	}
	if len(ts) == 1 && !unbatched {
		tg = e.padConcatenated(tg, tl, ts[0])
		ts = []int64{ls[1], ts[0]}
	}
	if len(ts) != 2 || ts[0] != ls[1] {
		return nil, c.errf("targets %v must be padded (N, S) with N = %d, or 1-D concatenated", ts, ls[1])
	}
	steps, batch, classes, S := ls[0], ls[1], ls[2], ts[1]
	if blank < 0 || blank >= classes {
		return nil, c.errf("blank %d is not a class of the %d", blank, classes)
	}
	if steps < 1 || steps > maxCTCSteps {
		return nil, c.errf("the recursion is unrolled over the %d steps, which must be between 1 and %d", steps, maxCTCSteps)
	}
	width := 2*S + 1
	tg = e.classTarget(tg)
	sIdx := e.classRange(width)
	// Extended labels, blank past each entry's 2L+1 states.
	labelOf := make([]int64, width)
	odd := make([]bool, width)
	for s := range labelOf {
		labelOf[s] = int64(max(s-1, 0) / 2)
		odd[s] = s%2 == 1
	}
	isLabel := boolConst(odd)
	blankT := e.intScalar(blank)
	ext := e.where(isLabel, e.emit(&canon.Gather{Axis: 1}, tg, e.ints([]int64{width}, labelOf)), blankT)
	states := e.add(e.mul(tl, e.intScalar(2)), e.intScalar(1))
	inRange := e.cmp(canon.CmpLess, sIdx, e.unsqueeze(states, 1))
	ext = e.where(inRange, ext, blankT)
	// skip(s): s is a label whose previous label differs (s >= 3).
	prev := make([]int64, width)
	for s := range prev {
		prev[s] = int64(max(s-2, 0))
	}
	prevLabel := e.emit(&canon.Gather{Axis: 1}, ext, e.ints([]int64{width}, prev))
	canSkip := make([]bool, width)
	for s := range canSkip {
		canSkip[s] = s >= 2 && s%2 == 1
	}
	skip := e.emit(&canon.Logic{Fn: canon.LogicAnd}, boolConst(canSkip),
		e.not(e.cmp(canon.CmpEqual, prevLabel, ext)))
	// emit[t][n][s] = log_probs[t, n, l'(n, s)].
	idx := e.emit(&canon.Expand{Shape: []int64{steps, batch, width}}, e.unsqueeze(ext, 0))
	emitted := e.splitFirst(e.emit(&canon.GatherElements{Axis: 2}, lp, idx), int(steps))
	negInf := e.num(math.Inf(-1))
	first := make([]bool, width)
	first[0] = true
	if width > 1 {
		first[1] = true
	}
	alpha := e.where(boolConst(first), emitted[0], negInf)
	back1 := make([]int64, width)
	hasBack1 := make([]bool, width)
	for s := range back1 {
		back1[s], hasBack1[s] = int64(max(s-1, 0)), s >= 1
	}
	hasPrev := boolConst(hasBack1)
	ilCol := e.unsqueeze(il, 1)
	for t := int64(1); t < steps; t++ {
		a2 := e.where(hasPrev, e.emit(&canon.Gather{Axis: 1}, alpha, e.ints([]int64{width}, back1)), negInf)
		a3 := e.where(skip, e.emit(&canon.Gather{Axis: 1}, alpha, e.ints([]int64{width}, prev)), negInf)
		next := e.add(e.logSumExp(alpha, a2, a3), emitted[t])
		active := e.cmp(canon.CmpLess, e.intScalar(t), ilCol)
		alpha = e.where(active, next, alpha)
	}
	last := e.squeeze(e.emit(&canon.GatherElements{Axis: 1}, alpha, e.unsqueeze(e.mul(tl, e.intScalar(2)), 1)), 1)
	prevIdx := e.emit(&canon.Variadic{Fn: canon.VarMax}, e.sub(e.mul(tl, e.intScalar(2)), e.intScalar(1)), e.intScalar(0))
	beforeLast := e.squeeze(e.emit(&canon.GatherElements{Axis: 1}, alpha, e.unsqueeze(prevIdx, 1)), 1)
	hasLabels := e.cmp(canon.CmpGreater, tl, e.intScalar(0))
	loss := e.neg(e.logSumExp(last, e.where(hasLabels, beforeLast, negInf)))
	// No input steps: 0 for an empty target, else impossible.
	noSteps := e.cmp(canon.CmpEqual, il, e.intScalar(0))
	loss = e.where(noSteps, e.where(hasLabels, e.num(math.Inf(1)), e.num(0)), loss)
	if zeroInf {
		loss = e.where(e.cmp(canon.CmpEqual, loss, e.num(math.Inf(1))), e.num(0), loss)
	}
	switch red {
	case 1:
		perLabel := e.div(loss, e.clampMin(e.cast(tl, e.dt), 1))
		return finish(e, e.all(canon.ReduceMean, perLabel))
	case 2:
		return finish(e, e.all(canon.ReduceSum, loss))
	}
	if unbatched {
		loss = e.squeeze(loss, 0)
	}
	return finish(e, loss)
}

// lengths reads the bound argument i, an int list or an integer tensor,
// as a 1-D int64 tensor.
func (e *expander) lengths(c *opCall, i int) *tensorVal {
	if e.err != nil {
		return nil
	}
	if t, ok := c.bound[i].(*tensorVal); ok {
		return e.cast(t, canon.Int64)
	}
	v, err := c.ints(i, 0)
	if err != nil {
		e.err = err
		return nil
	}
	return e.ints([]int64{int64(len(v))}, v)
}

// logSumExp is log(Σ exp(x - m)) + m with m the elementwise maximum (0
// where every term is -inf), as ATen's CTC kernel computes it.
func (e *expander) logSumExp(xs ...*tensorVal) *tensorVal {
	m := e.emit(&canon.Variadic{Fn: canon.VarMax}, xs...)
	m = e.where(e.cmp(canon.CmpEqual, m, e.num(math.Inf(-1))), e.num(0), m)
	var sum *tensorVal
	for _, x := range xs {
		term := e.exp(e.sub(x, m))
		if sum == nil {
			sum = term
		} else {
			sum = e.add(sum, term)
		}
	}
	return e.add(e.log(sum), m)
}

// boolConst is a constant 1-D bool tensor.
func boolConst(v []bool) *tensorVal {
	data := make([]byte, len(v))
	for i, b := range v {
		if b {
			data[i] = 1
		}
	}
	return &tensorVal{konst: &canon.Tensor{DType: canon.Bool, Shape: []int64{int64(len(v))}, Data: data}}
}

// padConcatenated turns 1-D concatenated targets (total entries) into
// (N, total) rows: row n reads from its offset (the exclusive running sum
// of the lengths) on; entries past its length are read but masked out
// as padding by the recursion.
func (e *expander) padConcatenated(tg, lens *tensorVal, total int64) *tensorVal {
	if total < 1 {
		if e.err == nil {
			e.err = e.c.errf("the concatenated targets are empty; give padded (N, S) targets")
		}
		return nil
	}
	offsets := e.emit(&canon.CumSum{Axis: 0, Exclusive: true}, lens)
	idx := e.add(e.unsqueeze(offsets, 1), e.classRange(total))
	idx = e.emit(&canon.Variadic{Fn: canon.VarMin}, idx, e.intScalar(total-1))
	return e.emit(&canon.Gather{Axis: 0}, tg, idx)
}
