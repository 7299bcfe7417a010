package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// One step of a recurrent cell (aten's gru_cell, lstm_cell, rnn_tanh_cell,
// rnn_relu_cell, which torch.export records for nn.GRUCell, nn.LSTMCell
// and nn.RNNCell), written as ATen's RNN.cpp computes it: two linear
// maps, the gates split in PyTorch's order, the cell's update.
// TorchScript spells the same cells with unsafe_chunk, which is chunk.

var cellKinds = []string{"Transpose", "MatMul", "Add", "Sub", "Mul", "Split", "Sigmoid", "Tanh", "Relu"}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.unsafe_chunk":            entry(opChunk, "Split"),
		"torch.unsafe_split":            entry(opSplit, "Split"),
		"torch.unsafe_split_with_sizes": entry(opSplit, "Split"),
		"torch.gru_cell":                entry(opGRUCell, cellKinds...),
		"torch.lstm_cell":               entry(opLSTMCell, cellKinds...),
		"torch.rnn_tanh_cell":           entry(opRNNCell(canon.Tanh), cellKinds...),
		"torch.rnn_relu_cell":           entry(opRNNCell(canon.Relu), cellKinds...),
	})
}

// cellOperands reads (input, hx, w_ih, w_hh, b_ih, b_hh) bound in that
// order; hx is left to the caller (a tensor, or a list for the LSTM).
type cellOperands struct {
	x, wih, whh, bih, bhh *tensorVal
}

func readCell(c *opCall) (*cellOperands, error) {
	if err := c.bind("input", "hx", "w_ih", "w_hh", "b_ih=None", "b_hh=None"); err != nil {
		return nil, err
	}
	var o cellOperands
	var err error
	if o.x, err = c.tensor(0); err != nil {
		return nil, err
	}
	if r, err := c.rankOf(o.x, "the input"); err != nil {
		return nil, err
	} else if r != 2 {
		return nil, c.errf("the input has rank %d; a cell step takes (batch, input_size)", r)
	}
	if o.wih, err = c.tensor(2); err != nil {
		return nil, err
	}
	if o.whh, err = c.tensor(3); err != nil {
		return nil, err
	}
	if o.bih, err = c.optTensor(4); err != nil {
		return nil, err
	}
	if o.bhh, err = c.optTensor(5); err != nil {
		return nil, err
	}
	return &o, nil
}

// linear is x·wᵀ + b (b optional), as aten::linear.
func (e *expander) linear(x, w, b *tensorVal) *tensorVal {
	y := e.emit(&canon.MatMul{}, x, e.emit(&canon.Transpose{Perm: []int64{1, 0}}, w))
	if b != nil {
		y = e.add(y, b)
	}
	return y
}

// chunks splits x into n equal parts along axis 1.
func (e *expander) chunks(x *tensorVal, n int) []*tensorVal {
	if e.err != nil {
		return make([]*tensorVal, n)
	}
	s := e.shape(x, "the gates")
	if e.err != nil {
		return make([]*tensorVal, n)
	}
	if len(s) != 2 || s[1]%int64(n) != 0 {
		e.err = e.c.errf("the gates %v do not split into %d equal parts along axis 1; check the weights' shapes", s, n)
		return make([]*tensorVal, n)
	}
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = s[1] / int64(n)
	}
	parts, err := e.c.b().emit(e.c.scope, &canon.Split{Axis: 1, Sizes: sizes}, []*tensorVal{x}, n)
	if err != nil {
		e.err = e.c.errf("%v", err)
		return make([]*tensorVal, n)
	}
	return parts
}

// opGRUCell: r = σ(i_r + h_r), z = σ(i_z + h_z), n = tanh(i_n + r·h_n),
// h' = (h - n)·z + n, with i = linear(x, w_ih, b_ih), h_ = linear(h,
// w_hh, b_hh) split in PyTorch's (r, z, n) order.
func opGRUCell(c *opCall) (value, error) {
	o, err := readCell(c)
	if err != nil {
		return nil, err
	}
	h, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	e := newExpander(c, o.x)
	gi := e.chunks(e.linear(o.x, o.wih, o.bih), 3)
	gh := e.chunks(e.linear(h, o.whh, o.bhh), 3)
	r := e.unary(canon.Sigmoid, e.add(gi[0], gh[0]))
	z := e.unary(canon.Sigmoid, e.add(gi[1], gh[1]))
	n := e.unary(canon.Tanh, e.add(gi[2], e.mul(r, gh[2])))
	return finish(e, e.add(e.mul(e.sub(h, n), z), n))
}

// opLSTMCell(input, hx=[h, c], ...) returns (h', c'): with gates
// linear(x) + linear(h) split as (i, f, g, o), c' = σ(f)·c + σ(i)·tanh(g),
// h' = σ(o)·tanh(c').
func opLSTMCell(c *opCall) (value, error) {
	o, err := readCell(c)
	if err != nil {
		return nil, err
	}
	var state []value
	switch l := c.bound[1].(type) {
	case *listVal:
		state = l.items
	case *tupleVal:
		state = l.items
	}
	if len(state) != 2 {
		return nil, c.errf("hx must be the list [h, c], got %s", typeName(c.bound[1]))
	}
	h, ok1 := state[0].(*tensorVal)
	cell, ok2 := state[1].(*tensorVal)
	if !ok1 || !ok2 {
		return nil, c.errf("hx must hold two tensors")
	}
	e := newExpander(c, o.x)
	g := e.chunks(e.add(e.linear(o.x, o.wih, o.bih), e.linear(h, o.whh, o.bhh)), 4)
	in := e.unary(canon.Sigmoid, g[0])
	forget := e.unary(canon.Sigmoid, g[1])
	cand := e.unary(canon.Tanh, g[2])
	out := e.unary(canon.Sigmoid, g[3])
	cNext := e.add(e.mul(forget, cell), e.mul(in, cand))
	hNext := e.mul(out, e.unary(canon.Tanh, cNext))
	if e.err != nil {
		return nil, e.err
	}
	return &tupleVal{items: []value{hNext, cNext}}, nil
}

// opRNNCell is act(linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)).
func opRNNCell(act canon.UnaryFn) opHandler {
	return func(c *opCall) (value, error) {
		o, err := readCell(c)
		if err != nil {
			return nil, err
		}
		h, err := c.tensor(1)
		if err != nil {
			return nil, err
		}
		e := newExpander(c, o.x)
		return finish(e, e.unary(act, e.add(e.linear(o.x, o.wih, o.bih), e.linear(h, o.whh, o.bhh))))
	}
}
