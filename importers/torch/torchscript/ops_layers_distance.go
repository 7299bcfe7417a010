package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// nn.CosineSimilarity and nn.PairwiseDistance.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.cosine_similarity": entry(opCosineSimilarity, "ReduceL2", "Clip", "Div", "Mul", "ReduceSum"),
		"torch.pairwise_distance": entry(opPairwiseDistance, "Sub", "Add", "ReduceL2", "ReduceL1", "ReduceMax", "ReduceMin",
			"Abs", "Pow", "ReduceSum", "Cast", "Not", "Equal"),
		"torch.pdist": entry(opPdist, "Gather", "Sub", "ReduceL2", "ReduceL1", "ReduceMax", "ReduceMin",
			"Abs", "Pow", "ReduceSum", "Cast", "Not", "Equal"),
		"torch._pdist_forward": entry(opPdist, "Gather", "Sub", "ReduceL2", "ReduceL1", "ReduceMax", "ReduceMin",
			"Abs", "Pow", "ReduceSum", "Cast", "Not", "Equal"),
	})
}

// opPdist maps aten::pdist(input, p=2) (F.pdist): the p-norm distance of
// every pair of rows i < j of an (N, M) input, pairs in row-major order;
// the pairs are two constant row lists gathered.
func opPdist(c *opCall) (value, error) {
	x, err := c.bindInput("input", "p=2")
	if err != nil {
		return nil, err
	}
	p, err := c.float(1)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 {
		return nil, c.errf("input has shape %v; pdist takes (N, M)", shape)
	}
	if p < 0 {
		return nil, c.errf("p is %g; pdist takes p >= 0", p)
	}
	n := shape[0]
	pairs := n * (n - 1) / 2
	if err := c.b().a.fits("the row pairs", 16*pairs); err != nil {
		return nil, c.errf("%v", err)
	}
	if pairs == 0 {
		return nil, c.errf("an input of %d rows has no pairs (an empty result)", n)
	}
	first, second := make([]int64, 0, pairs), make([]int64, 0, pairs)
	for i := range n {
		for j := i + 1; j < n; j++ {
			first, second = append(first, i), append(second, j)
		}
	}
	e := layerEmit{c}
	a, err := e.op(&canon.Gather{Axis: 0}, x, i64s([]int64{pairs}, first))
	if err != nil {
		return nil, err
	}
	b, err := e.op(&canon.Gather{Axis: 0}, x, i64s([]int64{pairs}, second))
	if err != nil {
		return nil, err
	}
	d, err := e.bin(canon.Sub, a, b)
	if err != nil {
		return nil, err
	}
	return vectorNorm(c, d, p, []int64{1}, false)
}

// broadcastRank is the rank two tensors broadcast to.
func broadcastRank(c *opCall, a, b *tensorVal) (int, error) {
	ra, err := c.rankOf(a, "x1")
	if err != nil {
		return 0, err
	}
	rb, err := c.rankOf(b, "x2")
	if err != nil {
		return 0, err
	}
	return max(ra, rb), nil
}

// opCosineSimilarity maps aten::cosine_similarity(x1, x2, dim=1,
// eps=1e-8) as PyTorch 2 computes it: Σ (x1/max(‖x1‖, eps))·(x2/max(‖x2‖,
// eps)) along dim.
func opCosineSimilarity(c *opCall) (value, error) {
	x1, err := c.bindInput("x1", "x2", "dim=1", "eps=1e-08")
	if err != nil {
		return nil, err
	}
	x2, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	d, err := c.int(2)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(3)
	if err != nil {
		return nil, err
	}
	r, err := broadcastRank(c, x1, x2)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	e := layerEmit{c}
	unit := func(x *tensorVal) (*tensorVal, error) {
		xr, err := c.rankOf(x, "an operand")
		if err != nil {
			return nil, err
		}
		// The norm is taken along dim of the broadcast shape; an operand
		// of lower rank has that axis further left.
		axis := d - int64(r-xr)
		if axis < 0 {
			return nil, c.errf("operands of ranks below %d along dim %d are not supported", r, d)
		}
		n, err := e.op(&canon.Reduce{Fn: canon.ReduceL2, Axes: []int64{axis}, KeepDims: true}, x)
		if err != nil {
			return nil, err
		}
		clip := canon.NewClip()
		clip.Min = float32(eps)
		if n, err = e.op(clip, n); err != nil {
			return nil, err
		}
		return e.bin(canon.Div, x, n)
	}
	u1, err := unit(x1)
	if err != nil {
		return nil, err
	}
	u2, err := unit(x2)
	if err != nil {
		return nil, err
	}
	p, err := e.bin(canon.Mul, u1, u2)
	if err != nil {
		return nil, err
	}
	return e.op(&canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{d}}, p)
}

// opPairwiseDistance maps aten::pairwise_distance(x1, x2, p=2, eps=1e-6,
// keepdim=False): the p-norm of x1 − x2 + eps along the last axis.
func opPairwiseDistance(c *opCall) (value, error) {
	x1, err := c.bindInput("x1", "x2", "p=2", "eps=1e-06", "keepdim=False")
	if err != nil {
		return nil, err
	}
	x2, err := c.tensor(1)
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
	r, err := broadcastRank(c, x1, x2)
	if err != nil {
		return nil, err
	}
	e := layerEmit{c}
	diff, err := e.bin(canon.Sub, x1, x2)
	if err != nil {
		return nil, err
	}
	if diff, err = e.bin(canon.Add, diff, f32(eps)); err != nil {
		return nil, err
	}
	return vectorNorm(c, diff, p, []int64{int64(r - 1)}, keep)
}

// vectorNorm is PyTorch's p-norm along axes: L1 and L2 are canonical
// reductions, ±inf the largest or smallest |x|, 0 the count of nonzeros,
// other orders (Σ|x|^p)^(1/p).
func vectorNorm(c *opCall, x *tensorVal, p float64, axes []int64, keep bool) (*tensorVal, error) {
	e := layerEmit{c}
	reduce := func(fn canon.ReduceFn, t *tensorVal) (*tensorVal, error) {
		return e.op(&canon.Reduce{Fn: fn, Axes: axes, KeepDims: keep}, t)
	}
	switch {
	case p == 2:
		return reduce(canon.ReduceL2, x)
	case p == 1:
		return reduce(canon.ReduceL1, x)
	}
	a, err := e.math(canon.MathAbs, x)
	if err != nil {
		return nil, err
	}
	switch {
	case math.IsInf(p, 1):
		return reduce(canon.ReduceMax, a)
	case math.IsInf(p, -1):
		return reduce(canon.ReduceMin, a)
	case p == 0:
		zero, err := e.cmp(canon.CmpEqual, a, f32(0))
		if err != nil {
			return nil, err
		}
		nz, err := e.op(&canon.Not{}, zero)
		if err != nil {
			return nil, err
		}
		f, err := e.op(&canon.Cast{To: canon.Float32}, nz)
		if err != nil {
			return nil, err
		}
		return reduce(canon.ReduceSum, f)
	}
	pw, err := e.op(&canon.Pow{}, a, f32(p))
	if err != nil {
		return nil, err
	}
	s, err := reduce(canon.ReduceSum, pw)
	if err != nil {
		return nil, err
	}
	return e.op(&canon.Pow{}, s, f32(1/p))
}
