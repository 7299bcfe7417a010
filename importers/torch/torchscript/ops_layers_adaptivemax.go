package torchscript

import "github.com/modelbridge/modelbridge/canon"

// adaptiveMaxKinds are the kinds adaptive_max_pool{1,2,3}d emit: the
// maxima, and the indices (adaptiveMaxIndices).
var adaptiveMaxKinds = []string{"GlobalMaxPool", "MaxPool", "Slice", "ReduceMax", "Concat",
	"ArgMax", "Add", "GatherElements", "Mul", "Unsqueeze", "Squeeze"}

// adaptiveMaxIndices computes adaptive max pooling's indices as PyTorch
// numbers them, flat within each (n, c) plane. A window is a product of
// intervals, and PyTorch keeps the first maximum in row-major order, so
// the axes are reduced from the last to the first: each window's ArgMax
// (the first maximum) along one axis picks, with GatherElements, the
// positions already chosen along the later axes. Inputs holding NaN are
// not covered: PyTorch then reports the last NaN.
func adaptiveMaxIndices(c *opCall, x *tensorVal, in, out []int64) (*tensorVal, error) {
	e := layerEmit{c}
	nsp := len(in)
	cur := x
	// pos[k] holds, for every element of cur, the input position along
	// spatial axis k of the maximum it stands for (axes already reduced).
	pos := make([]*tensorVal, nsp)
	for k := nsp - 1; k >= 0; k-- {
		axis := int64(2 + k)
		starts, ends := adaptiveWindows(in[k], out[k])
		maxParts := make([]*tensorVal, out[k])
		posParts := make([][]*tensorVal, nsp)
		for o := range out[k] {
			slice := func(t *tensorVal) (*tensorVal, error) {
				return e.op(&canon.Slice{Starts: []int64{starts[o]}, Ends: []int64{ends[o]}, Axes: []int64{axis}, Steps: []int64{1}}, t)
			}
			window, err := slice(cur)
			if err != nil {
				return nil, err
			}
			if maxParts[o], err = e.op(&canon.Reduce{Fn: canon.ReduceMax, Axes: []int64{axis}, KeepDims: true}, window); err != nil {
				return nil, err
			}
			arg, err := e.op(&canon.ArgReduce{Axis: axis, KeepDims: true}, window)
			if err != nil {
				return nil, err
			}
			for j := k + 1; j < nsp; j++ {
				w, err := slice(pos[j])
				if err != nil {
					return nil, err
				}
				g, err := e.op(&canon.GatherElements{Axis: axis}, w, arg)
				if err != nil {
					return nil, err
				}
				posParts[j] = append(posParts[j], g)
			}
			at, err := e.bin(canon.Add, arg, i64s([]int64{}, []int64{starts[o]}))
			if err != nil {
				return nil, err
			}
			posParts[k] = append(posParts[k], at)
		}
		join := func(parts []*tensorVal) (*tensorVal, error) {
			if len(parts) == 1 {
				return parts[0], nil
			}
			return e.op(&canon.Concat{Axis: axis}, parts...)
		}
		var err error
		if cur, err = join(maxParts); err != nil {
			return nil, err
		}
		for j := k; j < nsp; j++ {
			if pos[j], err = join(posParts[j]); err != nil {
				return nil, err
			}
		}
	}
	flat := pos[0]
	for k := 1; k < nsp; k++ {
		scaled, err := e.bin(canon.Mul, flat, i64s([]int64{}, []int64{in[k]}))
		if err != nil {
			return nil, err
		}
		if flat, err = e.bin(canon.Add, scaled, pos[k]); err != nil {
			return nil, err
		}
	}
	return flat, nil
}
