package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Distances between vectors (aten's pairwise_distance, cosine_similarity,
// cdist, pdist, dist), written as ATen's Distance.cpp computes them.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.pairwise_distance": entry(opPairwiseDistance, kinds(promoteKinds, pnormKinds, []string{"Add", "Sub"})...),
		"torch.cosine_similarity": entry(opCosineSimilarity, "Cast", "Expand", "ReduceL2", "Max", "Div", "Mul", "ReduceSum"),
		"torch.cdist":             entry(opCdist, kinds(promoteKinds, pnormKinds, []string{"Unsqueeze", "Sub"})...),
		"torch.pdist":             entry(opPdist, kinds(pnormKinds, []string{"Gather", "Sub"})...),
		"torch.dist":              entry(opDist, kinds(promoteKinds, pnormKinds, []string{"Sub"})...),
	})
}

// pairwiseDistance is at::pairwise_distance: the p-norm of x1 - x2 + eps
// along the last axis of the broadcast (eps is added to the difference,
// not to the norm).
func (e *expander) pairwiseDistance(x1, x2 *tensorVal, p, eps float64, keep bool) *tensorVal {
	r := max(e.rank(x1), e.rank(x2))
	if e.err == nil && r == 0 {
		e.err = e.c.errf("pairwise_distance of two scalars has no axis to reduce")
	}
	return e.pnorm(e.add(e.sub(x1, x2), e.num(eps)), p, keep, int64(r-1))
}

// opPairwiseDistance is aten::pairwise_distance(x1, x2, p, eps, keepdim).
func opPairwiseDistance(c *opCall) (value, error) {
	if err := c.bind("x1", "x2", "p=2", "eps=1e-06", "keepdim=False"); err != nil {
		return nil, err
	}
	x1, x2, err := twoFloatTensors(c)
	if err != nil {
		return nil, err
	}
	p, err := c.float(2)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(3)
	if err != nil {
		return nil, err
	}
	keep, err := c.bool(4)
	if err != nil {
		return nil, err
	}
	e := newExpander(c, x1)
	return finish(e, e.pairwiseDistance(x1, x2, p, eps, keep))
}

func twoFloatTensors(c *opCall) (*tensorVal, *tensorVal, error) {
	x1, err := c.tensor(0)
	if err != nil {
		return nil, nil, err
	}
	x2, err := c.tensor(1)
	if err != nil {
		return nil, nil, err
	}
	x1, x2, err = promoteTensors(c, x1, x2)
	if err != nil {
		return nil, nil, err
	}
	if dt := c.b().info(x1).DType; dt != canon.Undefined && !dt.IsFloat() {
		return nil, nil, c.errf("operands are %s; this distance is computed for floating-point tensors only", dt)
	}
	return x1, x2, nil
}

// opCosineSimilarity is aten::cosine_similarity(x1, x2, dim, eps), which
// (PyTorch 1.13 and 2.x alike) broadcasts the operands, divides each by
// its 2-norm along dim clamped below at eps, and sums the product.
func opCosineSimilarity(c *opCall) (value, error) {
	if err := c.bind("x1", "x2", "dim=1", "eps=1e-08"); err != nil {
		return nil, err
	}
	x1, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	x2, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	// Integer and bool operands are compared in the default float dtype.
	for _, x := range []**tensorVal{&x1, &x2} {
		if dt := c.b().info(*x).DType; dt != canon.Undefined && !dt.IsFloat() {
			if *x, err = castTo(c, *x, canon.Float32); err != nil {
				return nil, err
			}
		}
	}
	if x1, x2, err = promoteTensors(c, x1, x2); err != nil {
		return nil, err
	}
	dim, err := c.int(2)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(3)
	if err != nil {
		return nil, err
	}
	e := newExpander(c, x1)
	s1, s2 := e.shape(x1, "x1"), e.shape(x2, "x2")
	if e.err != nil {
		return nil, e.err
	}
	shape, err := broadcastShapes(s1, s2)
	if err != nil {
		return nil, c.errf("x1 %v and x2 %v do not broadcast", s1, s2)
	}
	if !sameInts(s1, shape) {
		x1 = e.emit(&canon.Expand{Shape: shape}, x1)
	}
	if !sameInts(s2, shape) {
		x2 = e.emit(&canon.Expand{Shape: shape}, x2)
	}
	axis, err := c.axis(dim, len(shape))
	if err != nil {
		return nil, err
	}
	n1 := e.clampMin(e.reduce(canon.ReduceL2, x1, true, axis), eps)
	n2 := e.clampMin(e.reduce(canon.ReduceL2, x2, true, axis), eps)
	return finish(e, e.reduce(canon.ReduceSum, e.mul(e.div(x1, n1), e.div(x2, n2)), false, axis))
}

// opCdist is aten::cdist(x1, x2, p, compute_mode): the p-norm distance
// of every row of x1 (..., P, M) to every row of x2 (..., R, M). For p 2
// ATen may use a matrix product (|a|² - 2a·b + |b|², compute_mode 1, or
// None/0 with P or R above 25), which agrees with the direct difference
// to rounding where rows are apart and gives 0 for equal rows (its
// squares cancel exactly); the product's cancellation noise for nearly
// equal rows depends on the BLAS summation order, so the direct form,
// exact there, is written for every mode.
func opCdist(c *opCall) (value, error) {
	if err := c.bind("x1", "x2", "p=2", "compute_mode=None"); err != nil {
		return nil, err
	}
	x1, x2, err := twoFloatTensors(c)
	if err != nil {
		return nil, err
	}
	p, err := c.float(2)
	if err != nil {
		return nil, err
	}
	if p < 0 {
		return nil, c.errf("p %g is negative; cdist takes p >= 0", p)
	}
	if !c.isNone(3) {
		mode, err := c.int(3)
		if err != nil {
			return nil, err
		}
		if mode < 0 || mode > 2 {
			return nil, c.errf("compute_mode %d is not one of torch's (0, 1, 2)", mode)
		}
	}
	e := newExpander(c, x1)
	r1, r2 := e.rank(x1), e.rank(x2)
	if e.err != nil {
		return nil, e.err
	}
	if r1 < 2 || r2 < 2 {
		return nil, c.errf("x1 and x2 must be (..., P, M) and (..., R, M); their ranks are %d and %d", r1, r2)
	}
	d := e.sub(e.unsqueeze(x1, int64(r1-1)), e.unsqueeze(x2, int64(r2-2)))
	return finish(e, e.pnorm(d, p, false, int64(max(r1, r2))))
}

// maxPdistRows bounds pdist's constant pair indices (N·(N-1)/2 of each).
const maxPdistRows = 4096

// opPdist is aten::pdist(self, p): the p-norm distances of rows i < j of
// an (N, M) input, in row-major order of the pairs.
func opPdist(c *opCall) (value, error) {
	x, err := c.bindInput("self", "p=2")
	if err != nil {
		return nil, err
	}
	p, err := c.float(1)
	if err != nil {
		return nil, err
	}
	if p < 0 {
		return nil, c.errf("p %g is negative; pdist takes p >= 0", p)
	}
	e := newExpander(c, x)
	s := e.shape(x, "the input")
	if e.err != nil {
		return nil, e.err
	}
	if len(s) != 2 || s[0] < 2 {
		return nil, c.errf("the input %v must be (N, M) with N >= 2", s)
	}
	if s[0] > maxPdistRows {
		return nil, c.errf("the input has %d rows; the pair indices are constants, written for at most %d rows", s[0], maxPdistRows)
	}
	var is, js []int64
	for i := int64(0); i < s[0]; i++ {
		for j := i + 1; j < s[0]; j++ {
			is, js = append(is, i), append(js, j)
		}
	}
	n := []int64{int64(len(is))}
	a := e.emit(&canon.Gather{Axis: 0}, x, e.ints(n, is))
	b := e.emit(&canon.Gather{Axis: 0}, x, e.ints(n, js))
	return finish(e, e.pnorm(e.sub(a, b), p, false, 1))
}

// opDist is aten::dist(self, other, p): the p-norm of every entry of
// self - other.
func opDist(c *opCall) (value, error) {
	if err := c.bind("self", "other", "p=2"); err != nil {
		return nil, err
	}
	x1, x2, err := twoFloatTensors(c)
	if err != nil {
		return nil, err
	}
	p, err := c.float(2)
	if err != nil {
		return nil, err
	}
	e := newExpander(c, x1)
	d := e.sub(x1, x2)
	r := e.rank(d)
	if e.err != nil {
		return nil, e.err
	}
	if r == 0 {
		return finish(e, e.abs(d))
	}
	axes := make([]int64, r)
	for i := range axes {
		axes[i] = int64(i)
	}
	return finish(e, e.pnorm(d, p, false, axes...))
}
