package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// lstmProjKinds are the kinds the unrolled projected LSTM emits.
var lstmProjKinds = []string{"Transpose", "MatMul", "Add", "Mul", "Split", "Squeeze", "Unsqueeze", "Concat", "Sigmoid", "Tanh"}

// projected expands aten::lstm with projections (nn.LSTM(proj_size > 0),
// params per layer and direction w_ih, w_hh[, b_ih, b_hh], w_hr). The
// canonical LSTM has no projection, so the recurrence is unrolled over
// the (static) sequence as ATen's CPU kernel runs it: the input map of
// every step first, then per step gates = (h·w_hhᵀ + b_hh) + x_t-map,
// split (i, f, g, o), c' = σ(f)·c + σ(i)·tanh(g), h' = (σ(o)·tanh(c'))·w_hrᵀ;
// the reverse direction walks the steps backwards, and each layer reads
// the directions' outputs joined.
func (r *torchRecurrent) projected(x *tensorVal, items []value, hx value) (value, error) {
	c := r.c
	per := 3
	if r.hasBias {
		per = 5
	}
	params := make([]*tensorVal, len(items))
	for i, it := range items {
		t, ok := it.(*tensorVal)
		if !ok {
			return nil, c.errf("params[%d] is a %s, not a Tensor", i, typeName(it))
		}
		params[i] = t
	}
	state, ok := hx.(*listVal)
	if !ok || len(state.items) != 2 {
		return nil, c.errf("hx must be a list [h0, c0]")
	}
	h0, ok1 := state.items[0].(*tensorVal)
	c0, ok2 := state.items[1].(*tensorVal)
	if !ok1 || !ok2 {
		return nil, c.errf("hx must hold two tensors")
	}
	e := newExpander(c, x)
	if r.batchFirst {
		x = e.emit(&canon.Transpose{Perm: []int64{1, 0, 2}}, x)
	}
	xs := e.shape(x, "the input")
	if e.err != nil {
		return nil, e.err
	}
	if len(xs) != 3 {
		return nil, c.errf("the input has rank %d; aten::lstm takes (seq, batch, features)", len(xs))
	}
	steps, n := xs[0], r.layers*r.dirs
	if steps < 1 || steps > 10000 {
		return nil, c.errf("a projected LSTM is unrolled over its %d steps, which must be between 1 and 10000", steps)
	}
	hs := e.splitFirst(h0, n)
	cs := e.splitFirst(c0, n)
	hn := make([]*tensorVal, n)
	cn := make([]*tensorVal, n)
	layerIn := x
	for l := 0; l < r.layers; l++ {
		outs := make([][]*tensorVal, r.dirs)
		for d := 0; d < r.dirs; d++ {
			k := l*r.dirs + d
			p := params[k*per : (k+1)*per]
			wih, whh, whr := p[0], p[1], p[per-1]
			var bih, bhh *tensorVal
			if r.hasBias {
				bih, bhh = p[2], p[3]
			}
			inMap := e.splitFirst(e.linear(layerIn, wih, bih), int(steps))
			h, cell := hs[k], cs[k]
			outs[d] = make([]*tensorVal, steps)
			for s := int64(0); s < steps; s++ {
				t := s
				if d == 1 {
					t = steps - 1 - s
				}
				g := e.chunks(e.add(e.linear(h, whh, bhh), inMap[t]), 4)
				cell = e.add(e.mul(e.unary(canon.Sigmoid, g[1]), cell), e.mul(e.unary(canon.Sigmoid, g[0]), e.unary(canon.Tanh, g[2])))
				full := e.mul(e.unary(canon.Sigmoid, g[3]), e.unary(canon.Tanh, cell))
				h = e.emit(&canon.MatMul{}, full, e.emit(&canon.Transpose{Perm: []int64{1, 0}}, whr))
				outs[d][t] = h
			}
			hn[k], cn[k] = h, cell
		}
		stepOuts := make([]*tensorVal, steps)
		for t := range stepOuts {
			joined := outs[0][t]
			if r.dirs == 2 {
				joined = e.emit(&canon.Concat{Axis: 1}, outs[0][t], outs[1][t])
			}
			stepOuts[t] = e.unsqueeze(joined, 0)
		}
		layerIn = e.concat0(stepOuts)
	}
	y := layerIn
	if r.batchFirst {
		y = e.emit(&canon.Transpose{Perm: []int64{1, 0, 2}}, y)
	}
	hOut, cOut := e.stack0(hn), e.stack0(cn)
	if e.err != nil {
		return nil, e.err
	}
	return &tupleVal{items: []value{y, hOut, cOut}}, nil
}

// splitFirst splits x along axis 0 into n pieces of size 1, each with
// that axis removed.
func (e *expander) splitFirst(x *tensorVal, n int) []*tensorVal {
	out := make([]*tensorVal, n)
	if e.err != nil {
		return out
	}
	parts := []*tensorVal{x}
	if n > 1 {
		sizes := make([]int64, n)
		for i := range sizes {
			sizes[i] = 1
		}
		var err error
		if parts, err = e.c.b().emit(e.c.scope, &canon.Split{Axis: 0, Sizes: sizes}, []*tensorVal{x}, n); err != nil {
			e.err = e.c.errf("%v", err)
			return out
		}
	}
	for i, p := range parts {
		out[i] = e.squeeze(p, 0)
	}
	return out
}

// concat0 joins parts along axis 0 (one part is returned as is).
func (e *expander) concat0(parts []*tensorVal) *tensorVal {
	if len(parts) == 1 {
		return parts[0]
	}
	return e.emit(&canon.Concat{Axis: 0}, parts...)
}

// stack0 stacks parts on a new axis 0.
func (e *expander) stack0(parts []*tensorVal) *tensorVal {
	un := make([]*tensorVal, len(parts))
	for i, p := range parts {
		un[i] = e.unsqueeze(p, 0)
	}
	return e.concat0(un)
}
