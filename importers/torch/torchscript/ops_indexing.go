package torchscript

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The indexing family: torch.gather, scatter, scatter_add, scatter_reduce,
// one_hot, masked_select, triu and tril.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.gather":         entry(opGather, "GatherElements"),
		"torch.scatter":        entry(opScatter, "ScatterElements"),
		"torch.scatter_add":    entry(opScatterAdd, "ScatterElements"),
		"torch.scatter_reduce": entry(opScatterReduce, scatterReduceKinds...),
		"torch.one_hot":        entry(opOneHot, "OneHot"),
		"torch.masked_select":  entry(opMaskedSelect, "Compress", "Reshape"),
		"torch.triu":           entry(opTrilu(true), "Trilu"),
		"torch.tril":           entry(opTrilu(false), "Trilu"),
	})
}

// indexingDim normalizes the dim argument i against t's rank.
func indexingDim(c *opCall, i int, t *tensorVal) (int64, error) {
	d, err := c.int(i)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		r, err := c.rankOf(t, "the input")
		if err != nil {
			return 0, err
		}
		return c.axis(d, r)
	}
	return d, nil
}

func opGather(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "index", "sparse_grad=False")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.GatherElements{Axis: d}, x, idx)
}

// scatterOp emits x.scatter(dim, index, src) with reduction r; src may be a
// number, broadcast to the index's (static) shape as torch does.
func scatterOp(c *opCall, r canon.ScatterReduction) (value, error) {
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	src, ok := c.bound[3].(*tensorVal)
	if !ok {
		s, isNum := scalarOf(c.bound[3])
		if !isNum {
			return nil, c.errf("src must be a Tensor or a number, got %s", typeName(c.bound[3]))
		}
		shape, err := c.shapeOf(idx, "the index")
		if err != nil {
			return nil, err
		}
		k, err := indexingFilled(c, c.b().info(x).DType, shape, s.f)
		if err != nil {
			return nil, err
		}
		src = &tensorVal{konst: k}
	}
	return c.b().emit1(c.scope, &canon.ScatterElements{Axis: d, Reduction: r}, x, idx, src)
}

// indexingFilled is a tensor of shape and dtype dt holding v everywhere.
func indexingFilled(c *opCall, dt canon.DType, shape []int64, v float64) (*canon.Tensor, error) {
	n := canon.NumElements(shape)
	if n < 0 || n > 1<<24 {
		return nil, c.errf("the index has %d elements, too many to fill with a scalar", n)
	}
	switch dt {
	case canon.Float32:
		vals := make([]float32, n)
		for i := range vals {
			vals[i] = float32(v)
		}
		return canon.NewFloat32Tensor("", shape, vals), nil
	case canon.Int64:
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(v)
		}
		return canon.NewInt64Tensor("", shape, vals), nil
	case canon.Float64:
		b := make([]byte, 8*n)
		for i := range n {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return &canon.Tensor{DType: dt, Shape: shape, Data: b}, nil
	}
	return nil, c.errf("scattering a number into %s data is not supported; pass a tensor", dt)
}

func opScatter(c *opCall) (value, error) {
	if err := c.bind("input", "dim", "index", "src", "reduce=None"); err != nil {
		return nil, err
	}
	r := canon.ScatterNone
	if !c.isNone(4) {
		switch s, _ := c.bound[4].(string); s {
		case "add":
			r = canon.ScatterAdd
		case "multiply":
			r = canon.ScatterMul
		default:
			return nil, c.errf("reduce=%v is not supported (want add or multiply)", c.bound[4])
		}
	}
	return scatterOp(c, r)
}

func opScatterAdd(c *opCall) (value, error) {
	if err := c.bind("input", "dim", "index", "src"); err != nil {
		return nil, err
	}
	return scatterOp(c, canon.ScatterAdd)
}

func opScatterReduce(c *opCall) (value, error) {
	if err := c.bind("input", "dim", "index", "src", "reduce", "include_self=True"); err != nil {
		return nil, err
	}
	self, err := c.bool(5)
	if err != nil {
		return nil, err
	}
	rs, _ := c.bound[4].(string)
	if !self || rs == "mean" {
		return scatterReduceExpanded(c, rs, self)
	}
	r, ok := map[string]canon.ScatterReduction{"sum": canon.ScatterAdd, "prod": canon.ScatterMul, "amax": canon.ScatterMax, "amin": canon.ScatterMin}[rs]
	if !ok {
		return nil, c.errf("reduce=%q is not supported (want sum, prod, amax or amin)", rs)
	}
	return scatterOp(c, r)
}

// opOneHot: torch's one_hot is int64 0/1 with a last axis of num_classes
// (-1: the largest index plus one, known only for constant indices).
func opOneHot(c *opCall) (value, error) {
	idx, err := c.bindInput("tensor", "num_classes=-1")
	if err != nil {
		return nil, err
	}
	depth, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if depth < 0 {
		// Weights are loaded as initializers, whose values are known.
		name, err := c.b().valueName(idx)
		if err != nil {
			return nil, err
		}
		k := c.b().vals[name].Const
		if k == nil {
			return nil, c.errf("num_classes=-1 takes the depth from the indices' values, which are known only at run time; give num_classes")
		}
		v, err := k.Int64s()
		if err != nil {
			return nil, c.errf("indices: %v", err)
		}
		for _, x := range v {
			depth = max(depth, x+1)
		}
	}
	if depth < 1 {
		return nil, c.errf("num_classes is %d, must be >= 1", depth)
	}
	vals := &tensorVal{konst: canon.NewInt64Tensor("", []int64{2}, []int64{0, 1})}
	// torch refuses negative classes, so either index rule fits; ONNX's
	// current one (from the end) keeps the op writable as ONNX.
	return c.b().emit1(c.scope, &canon.OneHot{Axis: -1, Depth: depth, NegativeIndices: true}, idx, vals)
}

func opMaskedSelect(c *opCall) (value, error) {
	x, err := c.bindInput("input", "mask")
	if err != nil {
		return nil, err
	}
	mask, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	xs, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	ms, err := c.shapeOf(mask, "the mask")
	if err != nil {
		return nil, err
	}
	if len(xs) != len(ms) {
		return nil, c.errf("a mask of shape %v broadcast to the input's %v is not supported; give a mask of the input's shape", ms, xs)
	}
	for i := range xs {
		if xs[i] != ms[i] {
			return nil, c.errf("a mask of shape %v broadcast to the input's %v is not supported; give a mask of the input's shape", ms, xs)
		}
	}
	flat, err := c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{-1}}, mask)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Compress{Flatten: true}, x, flat)
}

func opTrilu(upper bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "diagonal=0")
		if err != nil {
			return nil, err
		}
		k, err := c.int(1)
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.Trilu{Upper: upper, K: k}, x)
	}
}
