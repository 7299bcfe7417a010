package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	// pdist itself and the distance ops are in ops_distance.go; PyTorch
	// 2's programs call pdist's forward kernel by its own name.
	optable.Add(&opTable, map[string]opEntry{
		"torch._pdist_forward": entry(opPdist, opTable["torch.pdist"].kinds...),
	})
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

// vectorNorm is PyTorch's p-norm along axes: L1 and L2 are canonical
// reductions, ±inf the largest or smallest |x|, 0 the count of nonzeros,
// other orders (Σ|x|^p)^(1/p).
func normAlong(c *opCall, x *tensorVal, p float64, axes []int64, keep bool) (*tensorVal, error) {
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
