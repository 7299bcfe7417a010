package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The elementwise losses of torch.nn (aten's mse_loss, l1_loss,
// huber_loss, ... with the at::Reduction argument: 0 none, 1 mean, 2 sum),
// each written as its exact formula from ATen's Loss.cpp in canonical
// elementwise ops and reductions.

// kinds joins kind lists (an op's own and those of the steps it shares).
func kinds(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Kinds of the steps the loss expansions share: operand promotion, the
// reduction, log1p and the p-norm.
var (
	promoteKinds = []string{"Cast"}
	reduceKinds  = []string{"ReduceMean", "ReduceSum"}
	log1pKinds   = []string{"Add", "Sub", "Equal", "Where", "Log", "Mul", "Div"}
	pnormKinds   = []string{"Equal", "Not", "Cast", "ReduceSum", "ReduceMax", "ReduceMin", "Abs", "ReduceL1", "ReduceL2", "Pow"}
	lossBase     = kinds(promoteKinds, reduceKinds)
)

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.broadcast_tensors":                entry(opBroadcastTensors, "Expand"),
		"torch.mse_loss":                         entry(opMSELoss, kinds(lossBase, []string{"Sub", "Mul"})...),
		"torch.l1_loss":                          entry(opL1Loss, kinds(lossBase, []string{"Sub", "Abs"})...),
		"torch.huber_loss":                       entry(opHuberLoss, kinds(lossBase, []string{"Sub", "Abs", "Mul", "Less", "Where"})...),
		"torch.smooth_l1_loss":                   entry(opSmoothL1Loss, kinds(lossBase, []string{"Sub", "Abs", "Mul", "Div", "Less", "Where"})...),
		"torch.binary_cross_entropy":             entry(opBinaryCrossEntropy, kinds(lossBase, log1pKinds, []string{"Neg", "Max"})...),
		"torch.binary_cross_entropy_with_logits": entry(opBCEWithLogits, kinds(lossBase, log1pKinds, []string{"Neg", "Abs", "Exp", "Max"})...),
		"torch.kl_div":                           entry(opKLDiv, kinds(lossBase, []string{"Exp", "Log", "Mul", "Sub", "Equal", "Where"})...),
		"torch.poisson_nll_loss":                 entry(opPoissonNLLLoss, kinds(lossBase, []string{"Exp", "Log", "Mul", "Add", "Sub", "LessOrEqual", "Where"})...),
		"torch.margin_ranking_loss":              entry(opMarginRankingLoss, kinds(lossBase, []string{"Neg", "Sub", "Mul", "Add", "Max"})...),
		"torch.hinge_embedding_loss":             entry(opHingeEmbeddingLoss, kinds(lossBase, []string{"Equal", "Not", "Sub", "Max", "Where", "Add"})...),
		"torch.soft_margin_loss":                 entry(opSoftMarginLoss, kinds(lossBase, log1pKinds, []string{"Neg", "Exp"})...),
		"torch.cosine_embedding_loss":            entry(opCosineEmbeddingLoss, kinds(lossBase, []string{"Mul", "Add", "Sqrt", "Div", "Equal", "Sub", "Max", "Where"})...),
		"torch.triplet_margin_loss":              entry(opTripletMarginLoss, kinds(lossBase, pnormKinds, []string{"Add", "Sub", "Min", "Max"})...),
	})
}

// lossPair binds (self, target, reduction=1, extra...) and returns the
// two operands in one dtype, the reduction and an expander.
func lossPair(c *opCall, extra ...string) (x, y *tensorVal, reduction int64, e *expander, err error) {
	if err = c.bind(append([]string{"self", "target", "reduction=1"}, extra...)...); err != nil {
		return
	}
	if x, err = c.tensor(0); err != nil {
		return
	}
	if y, err = c.tensor(1); err != nil {
		return
	}
	if reduction, err = c.int(2); err != nil {
		return
	}
	if x, y, err = promoteTensors(c, x, y); err != nil {
		return
	}
	e = newExpander(c, x)
	return
}

func finish(e *expander, v *tensorVal) (value, error) {
	if e.err != nil {
		return nil, e.err
	}
	return v, nil
}

// opBroadcastTensors is aten::broadcast_tensors(Tensor[] tensors): each
// tensor expanded to the shapes' broadcast (those already of that shape
// unchanged).
func opBroadcastTensors(c *opCall) (value, error) {
	if err := c.bind("tensors"); err != nil {
		return nil, err
	}
	var items []value
	switch l := c.bound[0].(type) {
	case *listVal:
		items = l.items
	case *tupleVal:
		items = l.items
	default:
		return nil, c.errf("tensors must be a list of tensors, got %s", typeName(c.bound[0]))
	}
	var shape []int64
	shapes := make([][]int64, len(items))
	for i, it := range items {
		t, ok := it.(*tensorVal)
		if !ok {
			return nil, c.errf("tensors[%d] is a %s, not a Tensor", i, typeName(it))
		}
		s, err := c.shapeOf(t, fmt.Sprintf("tensors[%d]", i))
		if err != nil {
			return nil, err
		}
		shapes[i] = s
		if shape, err = broadcastShapes(shape, s); err != nil {
			return nil, c.errf("the shapes %v do not broadcast", shapes[:i+1])
		}
	}
	out := &listVal{}
	for i, it := range items {
		t := it.(*tensorVal)
		if !sameInts(shapes[i], shape) {
			var err error
			if t, err = c.b().emit1(c.scope, &canon.Expand{Shape: shape}, t); err != nil {
				return nil, c.errf("%v", err)
			}
		}
		out.items = append(out.items, t)
	}
	return out, nil
}

// opMSELoss is (x - y)².
func opMSELoss(c *opCall) (value, error) {
	x, y, red, e, err := lossPair(c)
	if err != nil {
		return nil, err
	}
	d := e.sub(x, y)
	return finish(e, e.reduction(e.mul(d, d), red))
}

// opL1Loss is |x - y|.
func opL1Loss(c *opCall) (value, error) {
	x, y, red, e, err := lossPair(c)
	if err != nil {
		return nil, err
	}
	return finish(e, e.reduction(e.abs(e.sub(x, y)), red))
}

// opHuberLoss(self, target, reduction, delta): with z = |x - y|,
// 0.5·z² where z < delta, else delta·(z - 0.5·delta).
func opHuberLoss(c *opCall) (value, error) {
	x, y, red, e, err := lossPair(c, "delta=1.0")
	if err != nil {
		return nil, err
	}
	delta, err := c.float(3)
	if err != nil {
		return nil, err
	}
	z := e.abs(e.sub(x, y))
	quad := e.mul(e.mul(e.num(0.5), z), z)
	lin := e.mul(e.num(delta), e.sub(z, e.num(0.5*delta)))
	return finish(e, e.reduction(e.where(e.cmp(canon.CmpLess, z, e.num(delta)), quad, lin), red))
}

// opSmoothL1Loss(self, target, reduction, beta): with z = |x - y|,
// 0.5·z²/beta where z < beta, else z - 0.5·beta; beta 0 is l1_loss.
func opSmoothL1Loss(c *opCall) (value, error) {
	x, y, red, e, err := lossPair(c, "beta=1.0")
	if err != nil {
		return nil, err
	}
	beta, err := c.float(3)
	if err != nil {
		return nil, err
	}
	if beta < 0 {
		return nil, c.errf("beta %g is negative; torch requires beta >= 0", beta)
	}
	z := e.abs(e.sub(x, y))
	if beta == 0 {
		return finish(e, e.reduction(z, red))
	}
	quad := e.div(e.mul(e.mul(e.num(0.5), z), z), e.num(beta))
	lin := e.sub(z, e.num(0.5*beta))
	return finish(e, e.reduction(e.where(e.cmp(canon.CmpLess, z, e.num(beta)), quad, lin), red))
}

// opBinaryCrossEntropy(self, target, weight, reduction) is
// (t - 1)·max(log1p(-x), -100) - t·max(log(x), -100), times weight: the
// logs are clamped at -100 as ATen does, so x of 0 or 1 gives 100, not inf.
func opBinaryCrossEntropy(c *opCall) (value, error) {
	if err := c.bind("self", "target", "weight=None", "reduction=1"); err != nil {
		return nil, err
	}
	x, y, w, red, e, err := weightedPair(c, 2, 3)
	if err != nil {
		return nil, err
	}
	logx := e.maximum(e.log(x), e.num(-100))
	log1mx := e.maximum(e.log1p(e.neg(x)), e.num(-100))
	loss := e.sub(e.mul(e.sub(y, e.num(1)), log1mx), e.mul(y, logx))
	if w != nil {
		loss = e.mul(loss, w)
	}
	return finish(e, e.reduction(loss, red))
}

// weightedPair reads self and target (bound at 0 and 1), an optional
// weight at wi (none when wi < 0) and the reduction at ri.
func weightedPair(c *opCall, wi, ri int) (x, y, w *tensorVal, red int64, e *expander, err error) {
	if x, err = c.tensor(0); err != nil {
		return
	}
	if y, err = c.tensor(1); err != nil {
		return
	}
	if wi >= 0 {
		if w, err = c.optTensor(wi); err != nil {
			return
		}
	}
	if red, err = c.int(ri); err != nil {
		return
	}
	if x, y, err = promoteTensors(c, x, y); err != nil {
		return
	}
	e = newExpander(c, x)
	if w != nil {
		w = e.cast(w, e.dt)
	}
	return
}

// opBCEWithLogits(self, target, weight, pos_weight, reduction) is
// (1 - t)·x + lw·softplus(-x) with lw = (pos_weight - 1)·t + 1 (1 without
// pos_weight), times weight. softplus(-x) = max(-x, 0) + log1p(exp(-|x|))
// does not overflow for any x, which is ATen's -log_sigmoid(x).
func opBCEWithLogits(c *opCall) (value, error) {
	if err := c.bind("self", "target", "weight=None", "pos_weight=None", "reduction=1"); err != nil {
		return nil, err
	}
	x, y, w, red, e, err := weightedPair(c, 2, 4)
	if err != nil {
		return nil, err
	}
	pw, err := c.optTensor(3)
	if err != nil {
		return nil, err
	}
	softplusNeg := e.add(e.clampMin(e.neg(x), 0), e.log1p(e.exp(e.neg(e.abs(x)))))
	if pw != nil {
		lw := e.add(e.mul(e.sub(e.cast(pw, e.dt), e.num(1)), y), e.num(1))
		softplusNeg = e.mul(lw, softplusNeg)
	}
	loss := e.add(e.mul(e.sub(e.num(1), y), x), softplusNeg)
	if w != nil {
		loss = e.mul(loss, w)
	}
	return finish(e, e.reduction(loss, red))
}

// opKLDiv(self, target, reduction, log_target) is exp(t)·(t - x) with
// log_target, else xlogy(t, t) - t·x (0·log 0 taken as 0). torch's
// "batchmean" is a sum that the caller divides.
func opKLDiv(c *opCall) (value, error) {
	x, y, red, e, err := lossPair(c, "log_target=False")
	if err != nil {
		return nil, err
	}
	logTarget, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	var loss *tensorVal
	if logTarget {
		loss = e.mul(e.exp(y), e.sub(y, x))
	} else {
		zero := e.cmp(canon.CmpEqual, y, e.num(0))
		xlogy := e.where(zero, e.num(0), e.mul(y, e.log(y)))
		loss = e.sub(xlogy, e.mul(y, x))
	}
	return finish(e, e.reduction(loss, red))
}

// opPoissonNLLLoss(input, target, log_input, full, eps, reduction):
// exp(x) - t·x with log_input, else x - t·log(x + eps); full adds
// Stirling's t·log(t) - t + 0.5·log(2πt) where t > 1.
func opPoissonNLLLoss(c *opCall) (value, error) {
	if err := c.bind("input", "target", "log_input", "full", "eps", "reduction"); err != nil {
		return nil, err
	}
	x, y, _, red, e, err := weightedPair(c, -1, 5)
	if err != nil {
		return nil, err
	}
	logInput, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	full, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(4)
	if err != nil {
		return nil, err
	}
	var loss *tensorVal
	if logInput {
		loss = e.sub(e.exp(x), e.mul(y, x))
	} else {
		loss = e.sub(x, e.mul(y, e.log(e.add(x, e.num(eps)))))
	}
	if full {
		stirling := e.add(e.sub(e.mul(y, e.log(y)), y), e.mul(e.num(0.5), e.log(e.mul(e.num(2*3.141592653589793), y))))
		loss = e.add(loss, e.where(e.cmp(canon.CmpLessOrEqual, y, e.num(1)), e.num(0), stirling))
	}
	return finish(e, e.reduction(loss, red))
}

// opMarginRankingLoss(input1, input2, target, margin, reduction) is
// max(0, -t·(x1 - x2) + margin).
func opMarginRankingLoss(c *opCall) (value, error) {
	if err := c.bind("input1", "input2", "target", "margin=0.0", "reduction=1"); err != nil {
		return nil, err
	}
	x1, x2, t, e, err := threeTensors(c)
	if err != nil {
		return nil, err
	}
	margin, err := c.float(3)
	if err != nil {
		return nil, err
	}
	red, err := c.int(4)
	if err != nil {
		return nil, err
	}
	loss := e.clampMin(e.add(e.mul(e.neg(t), e.sub(x1, x2)), e.num(margin)), 0)
	return finish(e, e.reduction(loss, red))
}

// threeTensors reads the first three bound arguments, cast to the
// first's float dtype.
func threeTensors(c *opCall) (a, b, t *tensorVal, e *expander, err error) {
	var ts [3]*tensorVal
	for i := range ts {
		if ts[i], err = c.tensor(i); err != nil {
			return
		}
	}
	e = newExpander(c, ts[0])
	return ts[0], e.cast(ts[1], e.dt), e.cast(ts[2], e.dt), e, e.err
}

// opHingeEmbeddingLoss(self, target, margin, reduction) is
// max(0, margin - x) where t != 1 plus x where t != -1.
func opHingeEmbeddingLoss(c *opCall) (value, error) {
	x, y, red, e, err := lossPairAt(c, "self", "target", "margin=1.0", "reduction=1")
	if err != nil {
		return nil, err
	}
	margin, err := c.float(2)
	if err != nil {
		return nil, err
	}
	zero := e.num(0)
	marginPart := e.where(e.not(e.cmp(canon.CmpEqual, y, e.num(1))), e.clampMin(e.sub(e.num(margin), x), 0), zero)
	selfPart := e.where(e.not(e.cmp(canon.CmpEqual, y, e.num(-1))), x, zero)
	return finish(e, e.reduction(e.add(marginPart, selfPart), red))
}

// lossPairAt binds schema, whose first two are tensors and whose last is
// the reduction.
func lossPairAt(c *opCall, schema ...string) (x, y *tensorVal, red int64, e *expander, err error) {
	if err = c.bind(schema...); err != nil {
		return
	}
	x, y, _, red, e, err = weightedPair(c, -1, len(schema)-1)
	return
}

// opSoftMarginLoss(self, target, reduction) is log1p(exp(-t·x)).
func opSoftMarginLoss(c *opCall) (value, error) {
	x, y, red, e, err := lossPair(c)
	if err != nil {
		return nil, err
	}
	return finish(e, e.reduction(e.log1p(e.exp(e.neg(e.mul(x, y)))), red))
}

// opCosineEmbeddingLoss(input1, input2, target, margin, reduction): with
// cos = Σx1·x2 / sqrt((Σx1² + 1e-12)·(Σx2² + 1e-12)) along the feature
// axis, 1 - cos where t == 1, max(0, cos - margin) where t == -1, else 0.
func opCosineEmbeddingLoss(c *opCall) (value, error) {
	if err := c.bind("input1", "input2", "target", "margin=0.0", "reduction=1"); err != nil {
		return nil, err
	}
	x1, x2, t, e, err := threeTensors(c)
	if err != nil {
		return nil, err
	}
	margin, err := c.float(3)
	if err != nil {
		return nil, err
	}
	red, err := c.int(4)
	if err != nil {
		return nil, err
	}
	axis := int64(0)
	if e.rank(x1) == 2 {
		axis = 1
	}
	dot := e.reduce(canon.ReduceSum, e.mul(x1, x2), false, axis)
	m1 := e.add(e.reduce(canon.ReduceSum, e.mul(x1, x1), false, axis), e.num(1e-12))
	m2 := e.add(e.reduce(canon.ReduceSum, e.mul(x2, x2), false, axis), e.num(1e-12))
	cos := e.div(dot, e.sqrt(e.mul(m1, m2)))
	zero := e.num(0)
	pos := e.where(e.cmp(canon.CmpEqual, t, e.num(1)), e.sub(e.num(1), cos), zero)
	neg := e.where(e.cmp(canon.CmpEqual, t, e.num(-1)), e.clampMin(e.sub(cos, e.num(margin)), 0), zero)
	return finish(e, e.reduction(e.add(pos, neg), red))
}

// opTripletMarginLoss(anchor, positive, negative, margin, p, eps, swap,
// reduction) is max(0, margin + d(a, p) - d(a, n)) with torch's
// pairwise_distance d; swap takes min(d(a, n), d(p, n)).
func opTripletMarginLoss(c *opCall) (value, error) {
	if err := c.bind("anchor", "positive", "negative", "margin=1.0", "p=2", "eps=1e-06", "swap=False", "reduction=1"); err != nil {
		return nil, err
	}
	a, pos, neg, e, err := threeTensors(c)
	if err != nil {
		return nil, err
	}
	var f [3]float64
	for i := range f {
		if f[i], err = c.float(3 + i); err != nil {
			return nil, err
		}
	}
	margin, p, eps := f[0], f[1], f[2]
	swap, err := c.bool(6)
	if err != nil {
		return nil, err
	}
	red, err := c.int(7)
	if err != nil {
		return nil, err
	}
	dPos := e.pairwiseDistance(a, pos, p, eps, false)
	dNeg := e.pairwiseDistance(a, neg, p, eps, false)
	if swap {
		dNeg = e.minimum(dNeg, e.pairwiseDistance(pos, neg, p, eps, false))
	}
	loss := e.clampMin(e.sub(e.add(e.num(margin), dPos), dNeg), 0)
	return finish(e, e.reduction(loss, red))
}
