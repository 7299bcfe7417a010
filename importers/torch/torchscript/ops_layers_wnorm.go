package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch._weight_norm":           entry(opWeightNorm, "ReduceL2", "Div", "Mul", "Abs"),
		"torch._weight_norm_interface": entry(withBuffer(opWeightNorm), "ReduceL2", "Div", "Mul", "Abs"),
	})
}

// opWeightNorm maps aten::_weight_norm(v, g, dim=0) (nn.utils.weight_norm
// and parametrizations.weight_norm): v·(g/‖v‖), the norm taken over every
// axis but dim (over all axes when dim is -1). Weights known at import are
// folded into one constant, computed as PyTorch does in float32; others
// are the ReduceL2, Div and Mul.
func opWeightNorm(c *opCall) (value, error) {
	v, err := c.bindInput("v", "g", "dim=0")
	if err != nil {
		return nil, err
	}
	g, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	dim, err := c.int(2)
	if err != nil {
		return nil, err
	}
	vs, err := c.shapeOf(v, "v")
	if err != nil {
		return nil, err
	}
	if dim != -1 {
		if dim, err = c.axis(dim, len(vs)); err != nil {
			return nil, err
		}
	}
	var axes []int64
	for a := range int64(len(vs)) {
		if a != dim {
			axes = append(axes, a)
		}
	}
	if w, ok := foldWeightNorm(c, v, g, vs, dim); ok {
		return w, nil
	}
	e := layerEmit{c}
	var norm *tensorVal
	if len(axes) == 0 {
		if norm, err = e.math(canon.MathAbs, v); err != nil {
			return nil, err
		}
	} else if norm, err = e.op(&canon.Reduce{Fn: canon.ReduceL2, Axes: axes, KeepDims: true}, v); err != nil {
		return nil, err
	}
	q, err := e.bin(canon.Div, g, norm)
	if err != nil {
		return nil, err
	}
	return e.bin(canon.Mul, v, q)
}

// constValue is the float32 data of a tensor known at import.
func constValue(c *opCall, t *tensorVal) (*canon.Tensor, bool) {
	var k *canon.Tensor
	switch {
	case t.konst != nil:
		k = t.konst
	case t.ref != nil:
		loaded, err := t.ref.load(c.b().a, t.path)
		if err != nil {
			return nil, false
		}
		k = loaded
	default:
		k = c.b().info(t).Const
	}
	if k == nil || k.DType != canon.Float32 {
		return nil, false
	}
	return k, true
}

// foldWeightNorm computes the normalized weight at import when v and g
// are float32 constants and g has one entry per slice of dim (or one).
func foldWeightNorm(c *opCall, v, g *tensorVal, vs []int64, dim int64) (*tensorVal, bool) {
	vk, ok := constValue(c, v)
	if !ok {
		return nil, false
	}
	gk, ok := constValue(c, g)
	if !ok {
		return nil, false
	}
	vd, err := vk.Float64s()
	if err != nil {
		return nil, false
	}
	gd, err := gk.Float64s()
	if err != nil {
		return nil, false
	}
	// Index of each element's slice along dim, and the slice count.
	outer, inner, slices := int64(1), int64(1), int64(1)
	if dim >= 0 {
		slices = vs[dim]
		for _, d := range vs[:dim] {
			outer *= d
		}
		for _, d := range vs[dim+1:] {
			inner *= d
		}
	} else {
		inner = int64(len(vd))
	}
	if int64(len(gd)) != slices || int64(len(vd)) != outer*slices*inner {
		return nil, false
	}
	sums := make([]float64, slices)
	sliceOf := func(i int64) int64 { return (i / inner) % slices }
	for i, x := range vd {
		s := sliceOf(int64(i))
		sums[s] += x * x
	}
	q := make([]float32, slices)
	for s := range q {
		q[s] = float32(gd[s]) / float32(math.Sqrt(sums[s]))
	}
	w := make([]float32, len(vd))
	for i, x := range vd {
		w[i] = float32(x) * q[sliceOf(int64(i))]
	}
	return &tensorVal{konst: canon.NewFloat32Tensor("", clone(vs), w)}, true
}
