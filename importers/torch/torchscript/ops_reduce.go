package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The reduce family: torch.sum, amax, amin, prod, logsumexp, norm and
// linalg_vector_norm (of any order, ops_vecnorm.go), argmax, argmin, topk and cumsum. torch sums,
// multiplies and accumulates integers (and bools) in int64, so such inputs
// are cast to int64 first.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.sum":                entry(opReduce(canon.ReduceSum, true), "ReduceSum", "Cast"),
		"torch.amax":               entry(opReduce(canon.ReduceMax, false), "ReduceMax"),
		"torch.amin":               entry(opReduce(canon.ReduceMin, false), "ReduceMin"),
		"torch.logsumexp":          entry(opReduce(canon.ReduceLogSumExp, false), "ReduceLogSumExp"),
		"torch.prod":               entry(opProd, "ReduceProd", "Cast"),
		"torch.norm":               entry(opNorm("input", "p=None", "dim=None", "keepdim=False", "dtype=None"), normKinds...),
		"torch.linalg_vector_norm": entry(opNorm("input", "ord=2", "dim=None", "keepdim=False", "dtype=None"), normKinds...),
		"torch.argmax":             entry(opArg(false), "ArgMax", "Reshape"),
		"torch.argmin":             entry(opArg(true), "ArgMin", "Reshape"),
		"torch.topk":               entry(opTopK, "TopK", "IsNaN", "Where", "Cast", "GatherElements", "Slice", "Shape"),
		"torch.cumsum":             entry(opCumSum, "CumSum", "Cast"),
	})
	optable.Add(&opLacks, map[string]string{
		"ReduceLogSum":    "TorchScript writes it as aten::log of aten::sum; no single operator maps to it",
		"ReduceSumSquare": "TorchScript writes it as aten::sum of a product; no single operator maps to it",
	})
}

// int64Input casts integer and bool tensors to int64, the dtype torch
// sums and multiplies them in.
func int64Input(c *opCall, x *tensorVal) (*tensorVal, error) {
	dt := c.b().info(x).DType
	if dt == canon.Undefined || dt.IsFloat() || dt == canon.Int64 {
		return x, nil
	}
	return c.b().emit1(c.scope, &canon.Cast{To: canon.Int64}, x)
}

// reduceAxes reads a dim argument (None or an empty list: every axis),
// normalized against x's rank when known.
func reduceAxes(c *opCall, i int, x *tensorVal) ([]int64, error) {
	if c.isNone(i) {
		return nil, nil
	}
	axes, err := c.ints(i, 0)
	if err != nil {
		return nil, err
	}
	if r, err := c.rankOf(x, "the input"); err == nil {
		for k := range axes {
			if axes[k], err = c.axis(axes[k], r); err != nil {
				return nil, err
			}
		}
	}
	if len(axes) == 0 {
		return nil, nil
	}
	return axes, nil
}

func opReduce(fn canon.ReduceFn, widen bool) opHandler {
	return func(c *opCall) (value, error) {
		schema := []string{"input", "dim=None", "keepdim=False"}
		if widen {
			schema = append(schema, "dtype=None")
		}
		x, err := c.bindInput(schema...)
		if err != nil {
			return nil, err
		}
		axes, err := reduceAxes(c, 1, x)
		if err != nil {
			return nil, err
		}
		keep, err := c.bool(2)
		if err != nil {
			return nil, err
		}
		if widen && !c.isNone(3) {
			x, err = reduceDType(c, x, 3)
		} else if widen {
			x, err = int64Input(c, x)
		}
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.Reduce{Fn: fn, Axes: axes, KeepDims: keep}, x)
	}
}

// opProd: torch.prod(x) or torch.prod(x, dim, keepdim), over one axis.
func opProd(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=None", "keepdim=False", "dtype=None")
	if err != nil {
		return nil, err
	}
	axes, err := reduceAxes(c, 1, x)
	if err != nil {
		return nil, err
	}
	keep, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	if !c.isNone(3) {
		x, err = reduceDType(c, x, 3)
	} else {
		x, err = int64Input(c, x)
	}
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Reduce{Fn: canon.ReduceProd, Axes: axes, KeepDims: keep}, x)
}

// opNorm maps torch.norm and linalg_vector_norm: a vector norm of any
// order over axes (the Frobenius norm, p None or "fro", is the 2-norm of
// the entries).
func opNorm(schema ...string) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput(schema...)
		if err != nil {
			return nil, err
		}
		if x, err = reduceDType(c, x, 4); err != nil {
			return nil, err
		}
		ord, _, err := normOrder(c, 1, 2)
		if err != nil {
			return nil, err
		}
		axes, err := reduceAxes(c, 2, x)
		if err != nil {
			return nil, err
		}
		keep, err := c.bool(3)
		if err != nil {
			return nil, err
		}
		return vectorNorm(c, x, ord, axes, keep)
	}
}

// opArg: without dim, torch flattens the input first.
func opArg(isMin bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "dim=None", "keepdim=False")
		if err != nil {
			return nil, err
		}
		keep, err := c.bool(2)
		if err != nil {
			return nil, err
		}
		if c.isNone(1) {
			if keep {
				return nil, c.errf("keepdim=True without dim is not supported")
			}
			flat, err := c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{-1}}, x)
			if err != nil {
				return nil, err
			}
			return c.b().emit1(c.scope, &canon.ArgReduce{Min: isMin}, flat)
		}
		d, err := indexingDim(c, 1, x)
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.ArgReduce{Min: isMin, Axis: d, KeepDims: keep}, x)
	}
}

func opTopK(c *opCall) (value, error) {
	x, err := c.bindInput("input", "k", "dim=-1", "largest=True", "sorted=True")
	if err != nil {
		return nil, err
	}
	if k, ok := c.bound[1].(*dynInt); ok {
		return topKRunTime(c, x, k)
	}
	k, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, c.errf("k is %d, must be >= 0", k)
	}
	d, err := indexingDim(c, 2, x)
	if err != nil {
		return nil, err
	}
	largest, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	sorted, err := c.bool(4)
	if err != nil {
		return nil, err
	}
	if vi := c.b().info(x); vi.DType.IsFloat() && vi.RankKnown && len(vi.Shape) > 0 {
		return topKOrderingNaN(c, x, d, k, largest)
	}
	outs, err := c.b().emit(c.scope, &canon.TopK{Axis: d, K: k, Largest: largest, Sorted: sorted}, []*tensorVal{x}, 2)
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{outs[0], outs[1]}}, nil
}

func opCumSum(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "dtype=None")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	if !c.isNone(2) {
		x, err = reduceDType(c, x, 2)
	} else {
		x, err = int64Input(c, x)
	}
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.CumSum{Axis: d}, x)
}
