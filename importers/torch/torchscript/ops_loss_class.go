package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The classification losses (aten's cross_entropy_loss, nll_loss*,
// multi_margin_loss, multilabel_margin_loss): class-index targets are
// gathered, weights and ignore_index applied as ATen's Loss.cpp and
// LossNLL.cpp do.

// nllKinds are the kinds of the gather of each target's score, its
// weight and the ignore_index mask.
var nllKinds = kinds(reduceKinds, []string{"Cast", "Equal", "Not", "Where", "Unsqueeze", "Squeeze", "GatherElements", "Gather", "Neg", "Mul", "Div"})

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.cross_entropy_loss":     entry(opCrossEntropyLoss, kinds(nllKinds, []string{"LogSoftmax", "Reshape", "Add", "Sub"})...),
		"torch.nll_loss":               entry(opNLLLoss, kinds(nllKinds, []string{"NegativeLogLikelihoodLoss"})...),
		"torch.nll_loss2d":             entry(opNLLLoss, kinds(nllKinds, []string{"NegativeLogLikelihoodLoss"})...),
		"torch.nll_loss_nd":            entry(opNLLLoss, kinds(nllKinds, []string{"NegativeLogLikelihoodLoss"})...),
		"torch.nll_loss_forward":       entry(opNLLLossForward, nllKinds...),
		"torch.nll_loss2d_forward":     entry(opNLLLossForward, nllKinds...),
		"torch.multi_margin_loss":      entry(opMultiMarginLoss, kinds(reduceKinds, []string{"Cast", "Reshape", "Unsqueeze", "GatherElements", "Gather", "Add", "Sub", "Mul", "Div", "Max", "Equal", "Where"})...),
		"torch.multilabel_margin_loss": entry(opMultilabelMarginLoss, kinds(reduceKinds, []string{"Cast", "Less", "CumSum", "Equal", "Where", "Unsqueeze", "Mul", "ReduceMax", "GatherElements", "Add", "Sub", "Max", "Div"})...),
	})
}

// classTarget returns the class indices as int64. A float target can
// only be a traced input whose integer dtype the archive did not record
// (torch refuses float class indices), so it is converted.
func (e *expander) classTarget(t *tensorVal) *tensorVal {
	if dt := e.c.b().info(t).DType; dt == canon.Int64 || dt == canon.Undefined {
		return t
	}
	return e.cast(t, canon.Int64)
}

// classAxis is torch's class dimension: 0 for an unbatched (C) input,
// else 1.
func (e *expander) classAxis(x *tensorVal) int64 {
	if e.rank(x) == 1 {
		return 0
	}
	return 1
}

// nllParts computes, for log-probabilities logp and class indices t,
// each target's loss -w[t]·logp[t] (0 where t is ignore_index) and its
// weight w[t] (0 where ignored), both of t's shape.
func (e *expander) nllParts(logp, t, weight *tensorVal, ignore int64) (loss, w *tensorVal) {
	axis := e.classAxis(logp)
	if xr, tr := e.rank(logp), e.rank(t); e.err == nil && (xr == 0 || tr != xr-1) {
		e.err = e.c.errf("the input has rank %d and the class-index target rank %d; the target has the input's shape without the class axis", xr, tr)
	}
	t = e.classTarget(t)
	kept := e.not(e.cmp(canon.CmpEqual, t, e.intScalar(ignore)))
	safe := e.where(kept, t, e.intScalar(0))
	picked := e.squeeze(e.emit(&canon.GatherElements{Axis: axis}, logp, e.unsqueeze(safe, axis)), axis)
	zero := e.num(0)
	if weight != nil {
		w = e.where(kept, e.emit(&canon.Gather{Axis: 0}, e.cast(weight, e.dt), safe), zero)
		loss = e.where(kept, e.neg(e.mul(picked, w)), zero)
	} else {
		w = e.cast(kept, e.dt)
		loss = e.where(kept, e.neg(picked), zero)
	}
	return loss, w
}

// nllReduce is nll_loss's reduction: mean divides the sum by the summed
// weights of the targets not ignored (NaN when all are).
func (e *expander) nllReduce(loss, w *tensorVal, red int64) *tensorVal {
	if red == 1 {
		return e.div(e.all(canon.ReduceSum, loss), e.all(canon.ReduceSum, w))
	}
	return e.reduction(loss, red)
}

// opNLLLoss is aten::nll_loss / nll_loss2d / nll_loss_nd(self, target,
// weight, reduction, ignore_index) on (C), (N, C) or (N, C, d1, ...).
func opNLLLoss(c *opCall) (value, error) {
	if err := c.bind("self", "target", "weight=None", "reduction=1", "ignore_index=-100"); err != nil {
		return nil, err
	}
	x, t, w, red, e, err := classOperands(c)
	if err != nil {
		return nil, err
	}
	ignore, err := c.int(4)
	if err != nil {
		return nil, err
	}
	if v, ok := e.nllNode(x, t, w, red, ignore); ok {
		return finish(e, v)
	}
	loss, tw := e.nllParts(x, t, w, ignore)
	return finish(e, e.nllReduce(loss, tw, red))
}

// classOperands reads self, target, weight (at 2) and reduction (at 3).
func classOperands(c *opCall) (x, t, w *tensorVal, red int64, e *expander, err error) {
	if x, err = c.tensor(0); err != nil {
		return
	}
	if t, err = c.tensor(1); err != nil {
		return
	}
	if w, err = c.optTensor(2); err != nil {
		return
	}
	if red, err = c.int(3); err != nil {
		return
	}
	if dt := c.b().info(x).DType; dt != canon.Undefined && !dt.IsFloat() {
		err = c.errf("the input is %s; torch computes this loss on floating-point scores", dt)
		return
	}
	e = newExpander(c, x)
	return
}

// opCrossEntropyLoss is aten::cross_entropy_loss(self, target, weight,
// reduction, ignore_index, label_smoothing): log_softmax over the class
// axis, then nll_loss for class indices, or -Σ target·logp for class
// probabilities (a target of the input's shape), with label smoothing as
// ATen mixes it in.
func opCrossEntropyLoss(c *opCall) (value, error) {
	if err := c.bind("self", "target", "weight=None", "reduction=1", "ignore_index=-100", "label_smoothing=0.0"); err != nil {
		return nil, err
	}
	x, t, w, red, e, err := classOperands(c)
	if err != nil {
		return nil, err
	}
	ignore, err := c.int(4)
	if err != nil {
		return nil, err
	}
	smoothing, err := c.float(5)
	if err != nil {
		return nil, err
	}
	if red < 0 || red > 2 {
		return nil, c.errf("reduction %d is not one of torch's (0 none, 1 mean, 2 sum)", red)
	}
	if smoothing < 0 || smoothing > 1 {
		return nil, c.errf("label_smoothing %g must be in [0, 1]", smoothing)
	}
	xs, ts := e.shape(x, "the input"), e.shape(t, "the target")
	if e.err != nil {
		return nil, e.err
	}
	if len(xs) == 0 {
		return nil, c.errf("the input is a scalar; cross_entropy needs (C), (N, C) or (N, C, d1, ...)")
	}
	axis := e.classAxis(x)
	classes := xs[axis]
	if classes < 1 {
		return nil, c.errf("the input %v has no classes", xs)
	}
	logp := e.emit(&canon.LogSoftmax{Axis: axis}, x)
	var wb *tensorVal // weight shaped to broadcast along the class axis
	if w != nil {
		shape := make([]int64, len(xs))
		for i := range shape {
			shape[i] = 1
		}
		shape[axis] = classes
		wb = e.emit(&canon.Reshape{Shape: shape}, e.cast(w, e.dt))
	}
	if sameInts(xs, ts) {
		return crossEntropyProbs(c, e, logp, t, wb, red, ignore, smoothing, xs, axis)
	}
	loss, tw := e.nllParts(logp, t, w, ignore)
	nll := e.nllReduce(loss, tw, red)
	if smoothing == 0 {
		return finish(e, nll)
	}
	scaled := logp
	if wb != nil {
		scaled = e.mul(logp, wb)
	}
	smooth := e.neg(e.reduce(canon.ReduceSum, scaled, false, axis))
	smooth = e.where(e.cmp(canon.CmpEqual, e.classTarget(t), e.intScalar(ignore)), e.num(0), smooth)
	switch red {
	case 1:
		smooth = e.div(e.all(canon.ReduceSum, smooth), e.all(canon.ReduceSum, tw))
	case 2:
		smooth = e.all(canon.ReduceSum, smooth)
	}
	mixed := e.add(e.mul(e.num(1-smoothing), nll), e.mul(smooth, e.num(smoothing/float64(classes))))
	return finish(e, mixed)
}

// crossEntropyProbs is cross entropy against class probabilities:
// -Σ_c logp·target'·w with target' = target·(1-s) + s/C; mean divides by
// the number of samples (elements / C).
func crossEntropyProbs(c *opCall, e *expander, logp, t, wb *tensorVal, red, ignore int64, smoothing float64, xs []int64, axis int64) (value, error) {
	if ignore >= 0 {
		return nil, c.errf("ignore_index %d is not supported with class-probability targets (torch refuses it too)", ignore)
	}
	if dt := c.b().info(t).DType; dt != canon.Undefined && !dt.IsFloat() {
		return nil, c.errf("the target has the input's shape but is %s; torch reads such a target as class probabilities, which must be floating point", dt)
	}
	t = e.cast(t, e.dt)
	classes := xs[axis]
	if smoothing > 0 {
		t = e.add(e.mul(t, e.num(1-smoothing)), e.num(smoothing/float64(classes)))
	}
	prod := e.mul(logp, t)
	if wb != nil {
		prod = e.mul(prod, wb)
	}
	loss := e.neg(e.reduce(canon.ReduceSum, prod, false, axis))
	switch red {
	case 1:
		n := int64(1)
		for _, d := range xs {
			n *= d
		}
		return finish(e, e.div(e.all(canon.ReduceSum, loss), e.num(float64(n/classes))))
	case 2:
		return finish(e, e.all(canon.ReduceSum, loss))
	}
	return finish(e, loss)
}

// classRange is the constant [0, 1, ..., n-1].
func (e *expander) classRange(n int64) *tensorVal {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	return e.ints([]int64{n}, v)
}

// opMultiMarginLoss is aten::multi_margin_loss(self, target, p, margin,
// weight, reduction): for each sample, Σ_{d≠t} w[t]·max(0, margin - x[t]
// + x[d])^p over the C classes, divided by C (p is 1 or 2).
func opMultiMarginLoss(c *opCall) (value, error) {
	if err := c.bind("self", "target", "p=1", "margin=1", "weight=None", "reduction=1"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	t, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	p, err := c.int(2)
	if err != nil {
		return nil, err
	}
	if p != 1 && p != 2 {
		return nil, c.errf("p %d is not supported; torch's multi_margin_loss takes p 1 or 2", p)
	}
	margin, err := c.float(3)
	if err != nil {
		return nil, err
	}
	w, err := c.optTensor(4)
	if err != nil {
		return nil, err
	}
	red, err := c.int(5)
	if err != nil {
		return nil, err
	}
	e := newExpander(c, x)
	xs := e.shape(x, "the input")
	if e.err != nil {
		return nil, e.err
	}
	if len(xs) != 1 && len(xs) != 2 {
		return nil, c.errf("the input %v must be (C) or (N, C)", xs)
	}
	axis := int64(len(xs) - 1)
	classes := xs[axis]
	if tr := e.rank(t); e.err == nil && tr != len(xs)-1 {
		return nil, c.errf("the target has rank %d; for an input %v it holds one class index per sample", tr, xs)
	}
	t = e.classTarget(t)
	if len(xs) == 1 {
		t = e.emit(&canon.Reshape{Shape: []int64{1}}, t)
	} else {
		t = e.unsqueeze(t, 1)
	}
	xt := e.emit(&canon.GatherElements{Axis: axis}, x, t)
	z := e.clampMin(e.add(e.sub(e.num(margin), xt), x), 0)
	if p == 2 {
		z = e.mul(z, z)
	}
	if w != nil {
		z = e.mul(z, e.emit(&canon.Gather{Axis: 0}, e.cast(w, e.dt), t))
	}
	z = e.where(e.cmp(canon.CmpEqual, t, e.classRange(classes)), e.num(0), z)
	loss := e.div(e.reduce(canon.ReduceSum, z, false, axis), e.num(float64(classes)))
	return finish(e, e.reduction(loss, red))
}

// opMultilabelMarginLoss is aten::multilabel_margin_loss(self, target,
// reduction): the target row lists class indices up to its first
// negative entry; each sample's loss is Σ_j Σ_{i not a target}
// max(0, 1 - (x[j] - x[i])) over the listed j (repeats count again),
// divided by C.
func opMultilabelMarginLoss(c *opCall) (value, error) {
	if err := c.bind("self", "target", "reduction=1"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	t, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	red, err := c.int(2)
	if err != nil {
		return nil, err
	}
	e := newExpander(c, x)
	xs, ts := e.shape(x, "the input"), e.shape(t, "the target")
	if e.err != nil {
		return nil, e.err
	}
	if (len(xs) != 1 && len(xs) != 2) || !sameInts(xs, ts) {
		return nil, c.errf("the input %v and target %v must both be (C) or (N, C)", xs, ts)
	}
	axis := int64(len(xs) - 1)
	classes := xs[axis]
	t = e.classTarget(t)
	// listed[k]: entry k comes before the row's first negative entry.
	negative := e.cast(e.cmp(canon.CmpLess, t, e.intScalar(0)), e.dt)
	listed := e.cmp(canon.CmpEqual, e.emit(&canon.CumSum{Axis: axis}, negative), e.num(0))
	safe := e.where(listed, t, e.intScalar(0))
	// isTarget[i]: some listed entry names class i.
	names := e.cast(e.cmp(canon.CmpEqual, e.unsqueeze(safe, axis+1), e.classRange(classes)), e.dt)
	names = e.mul(names, e.unsqueeze(e.cast(listed, e.dt), axis+1))
	isTarget := e.reduce(canon.ReduceMax, names, false, axis)
	xj := e.emit(&canon.GatherElements{Axis: axis}, x, safe)
	// hinge[k][i] = max(0, 1 - x[t_k] + x[i]), kept for listed k and
	// classes i that are not targets.
	hinge := e.clampMin(e.add(e.sub(e.num(1), e.unsqueeze(xj, axis+1)), e.unsqueeze(x, axis)), 0)
	keep := e.mul(e.unsqueeze(e.cast(listed, e.dt), axis+1), e.unsqueeze(e.sub(e.num(1), isTarget), axis))
	total := e.reduce(canon.ReduceSum, e.mul(hinge, keep), false, axis, axis+1)
	loss := e.div(total, e.num(float64(classes)))
	return finish(e, e.reduction(loss, red))
}

// opNLLLossForward is aten::nll_loss_forward / nll_loss2d_forward(self,
// target, weight, reduction, ignore_index), which core-ATen programs
// record: (loss, total_weight). total_weight is the summed weight of the
// targets not ignored, and 0 for reduction none on a batch (ATen skips
// the sum there).
func opNLLLossForward(c *opCall) (value, error) {
	if err := c.bind("self", "target", "weight", "reduction", "ignore_index"); err != nil {
		return nil, err
	}
	x, t, w, red, e, err := classOperands(c)
	if err != nil {
		return nil, err
	}
	ignore, err := c.int(4)
	if err != nil {
		return nil, err
	}
	loss, tw := e.nllParts(x, t, w, ignore)
	out := e.nllReduce(loss, tw, red)
	total := e.all(canon.ReduceSum, tw)
	if red == 0 && e.rank(x) > 1 {
		total = e.num(0)
	}
	if e.err != nil {
		return nil, e.err
	}
	return &tupleVal{items: []value{out, total}}, nil
}
