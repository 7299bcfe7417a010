package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.lstm":     entry(opRecurrent("lstm"), append([]string{"LSTM", "Reshape", "Cast"}, lstmProjKinds...)...),
		"torch.gru":      entry(opRecurrent("gru"), "GRU", "Split", "Transpose", "Reshape", "Concat", "Cast"),
		"torch.rnn_tanh": entry(opRecurrent("rnn_tanh"), "RNN", "Split", "Transpose", "Reshape", "Concat", "Cast"),
		"torch.rnn_relu": entry(opRecurrent("rnn_relu"), "RNN", "Split", "Transpose", "Reshape", "Concat", "Cast"),
		// pack_padded_sequence / pad_packed_sequence around a packed
		// call: the padded tensor and its lengths become sequence_lens.
		"torch._pack_padded_sequence": entry(opPackPadded, "Transpose", "Greater", "Cast", "ReduceSum"),
		"torch._pad_packed_sequence":  entry(opPadPacked, "Transpose"),
	})
}

// torchRecurrent is one aten::lstm/gru/rnn_* call: PyTorch's flat weight
// list, in PyTorch's gate order, for num_layers stacked layers.
type torchRecurrent struct {
	c             *opCall
	mode          string
	layers, dirs  int
	hasBias       bool
	batchFirst    bool
	hidden, gates int64
	params        []*tensorVal
}

// opRecurrent maps aten::lstm.input(input, hx[], params[], has_biases,
// num_layers, dropout, train, bidirectional, batch_first) and
// aten::gru.input / rnn_tanh.input / rnn_relu.input (hx a single tensor).
// Each layer becomes one canonical node with the weights stacked per
// direction and reordered from PyTorch's gate order (i,f,g,o; r,z,n) to
// the canonical one. The packed-sequence overloads (aten::lstm.data,
// whose second argument is batch_sizes) are refused.
func opRecurrent(mode string) opHandler {
	return func(c *opCall) (value, error) {
		// The .data overloads (a PackedSequence) put batch_sizes second,
		// which moves the params list to position 3.
		var packed *packedSeq
		if len(c.args) > 3 {
			if _, ok := c.args[3].(*listVal); ok {
				p, ok := c.args[0].(*packedSeq)
				if !ok {
					return nil, c.errf("the packed-sequence form (data, batch_sizes, ...) is read only from torch._pack_padded_sequence's output; got %s", typeName(c.args[0]))
				}
				packed = p
				args := append([]value{p.data}, c.args[2:]...)
				c.args = append(args, false) // batch_first: packed data is sequence first
			}
		}
		if err := c.bind("input", "hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional", "batch_first"); err != nil {
			return nil, err
		}
		r := &torchRecurrent{c: c, mode: mode, gates: map[string]int64{"lstm": 4, "gru": 3}[mode]}
		if r.gates == 0 {
			r.gates = 1
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		if r.hasBias, err = c.bool(3); err != nil {
			return nil, err
		}
		layers, err := c.int(4)
		if err != nil {
			return nil, err
		}
		dropout, err := c.float(5)
		if err != nil {
			return nil, err
		}
		train, err := c.bool(6)
		if err != nil {
			return nil, err
		}
		if train && dropout != 0 && layers > 1 {
			return nil, c.errf("was traced in training mode with dropout %g between layers; call model.eval() before tracing", dropout)
		}
		bidir, err := c.bool(7)
		if err != nil {
			return nil, err
		}
		if r.batchFirst, err = c.bool(8); err != nil {
			return nil, err
		}
		if layers < 1 || layers > 1000 {
			return nil, c.errf("num_layers %d is out of range", layers)
		}
		r.layers, r.dirs = int(layers), 1
		if bidir {
			r.dirs = 2
		}
		list, ok := c.bound[2].(*listVal)
		if !ok {
			return nil, c.errf("params must be a list of tensors, got %s", typeName(c.bound[2]))
		}
		per := 2
		if r.hasBias {
			per = 4
		}
		if len(list.items) != per*r.layers*r.dirs {
			if mode == "lstm" && len(list.items) == (per+1)*r.layers*r.dirs {
				if packed != nil {
					return nil, c.errf("an LSTM with projections (proj_size > 0) on a packed sequence is not supported; pad the sequences instead")
				}
				return r.projected(x, list.items, c.bound[1])
			}
			return nil, c.errf("has %d weights; %d layers × %d directions × %d (w_ih, w_hh%s) = %d expected (an LSTM with projections has one more, w_hr, per layer and direction)",
				len(list.items), r.layers, r.dirs, per, map[bool]string{true: ", b_ih, b_hh"}[r.hasBias], per*r.layers*r.dirs)
		}
		for i, it := range list.items {
			t, ok := it.(*tensorVal)
			if !ok {
				return nil, c.errf("params[%d] is a %s, not a Tensor", i, typeName(it))
			}
			r.params = append(r.params, t)
		}
		hh := c.b().info(r.params[1])
		if !hh.RankKnown || len(hh.Shape) != 2 || !hh.Shape[1].Known() {
			return nil, c.errf("w_hh_l0 must be a 2-D tensor of known shape")
		}
		r.hidden = hh.Shape[1].Size
		var h0, c0 *tensorVal
		if mode == "lstm" {
			hx, ok := c.bound[1].(*listVal)
			if !ok || len(hx.items) != 2 {
				return nil, c.errf("hx must be a list [h0, c0]")
			}
			h0, _ = hx.items[0].(*tensorVal)
			c0, _ = hx.items[1].(*tensorVal)
			if h0 == nil || c0 == nil {
				return nil, c.errf("hx must hold two tensors")
			}
		} else if h0, err = c.tensor(1); err != nil {
			return nil, err
		}
		if packed == nil {
			return r.build(x, h0, c0, nil)
		}
		lens, err := c.b().emit1(c.scope, &canon.Cast{To: canon.Int32}, packed.lengths)
		if err != nil {
			return nil, err
		}
		res, err := r.build(x, h0, c0, lens)
		if err != nil {
			return nil, err
		}
		out := res.(*tupleVal)
		out.items[0] = &packedSeq{data: out.items[0].(*tensorVal), lengths: packed.lengths}
		return out, nil
	}
}

// packedSeq is a PackedSequence as the importer keeps it: the padded,
// sequence-first data and the lengths (int64, one per batch entry).
// Canonical recurrent ops read it as X with sequence_lens, and leave
// zeros past each length, which is pad_packed_sequence's padding.
type packedSeq struct {
	data    *tensorVal
	lengths *tensorVal
}

// opPackPadded maps torch._pack_padded_sequence(input, lengths,
// batch_first) to (packed, batch_sizes); batch_sizes[t] counts the
// sequences longer than t, computed for code that reads it (its size is
// the longest length, which traced code asks for).
func opPackPadded(c *opCall) (value, error) {
	x, err := c.bindInput("input", "lengths", "batch_first")
	if err != nil {
		return nil, err
	}
	lengths, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	batchFirst, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	b := c.b()
	if batchFirst {
		if x, err = b.emit1(c.scope, &canon.Transpose{Perm: []int64{1, 0, 2}}, x); err != nil {
			return nil, err
		}
	}
	v := b.info(x)
	if !v.RankKnown || len(v.Shape) != 3 || !v.Shape[0].Known() {
		return nil, c.errf("the padded input must be 3-D with a known length; give the input shapes")
	}
	if lt := b.info(lengths).DType; lt != canon.Int64 {
		if lengths, err = b.emit1(c.scope, &canon.Cast{To: canon.Int64}, lengths); err != nil {
			return nil, err
		}
	}
	T := v.Shape[0].Size
	steps := make([]int64, T)
	for i := range steps {
		steps[i] = int64(i)
	}
	longer, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpGreater}, lengths, &tensorVal{konst: canon.NewInt64Tensor("", []int64{T, 1}, steps)})
	if err != nil {
		return nil, err
	}
	if longer, err = b.emit1(c.scope, &canon.Cast{To: canon.Int64}, longer); err != nil {
		return nil, err
	}
	sizes, err := b.emit1(c.scope, &canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{1}}, longer)
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{&packedSeq{data: x, lengths: lengths}, sizes}}, nil
}

// opPadPacked maps torch._pad_packed_sequence(data, batch_sizes,
// batch_first, padding_value, total_length) to (padded, lengths).
func opPadPacked(c *opCall) (value, error) {
	if err := c.bind("data", "batch_sizes", "batch_first", "padding_value", "total_length"); err != nil {
		return nil, err
	}
	p, ok := c.bound[0].(*packedSeq)
	if !ok {
		return nil, c.errf("data must come from a recurrent layer run on a packed sequence, got %s", typeName(c.bound[0]))
	}
	batchFirst, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	pad, err := c.float(3)
	if err != nil {
		return nil, err
	}
	if pad != 0 {
		return nil, c.errf("padding_value %g is not supported: the recurrent layers leave zeros past each length", pad)
	}
	total, err := c.int(4)
	if err != nil {
		return nil, err
	}
	y := p.data
	if v := c.b().info(y); !v.RankKnown || len(v.Shape) < 1 || v.Shape[0].Size != total {
		return nil, c.errf("total_length %d differs from the padded length %v; only the input's own length is supported", total, v.Shape)
	}
	if batchFirst {
		if y, err = c.b().emit1(c.scope, &canon.Transpose{Perm: []int64{1, 0, 2}}, y); err != nil {
			return nil, err
		}
	}
	return &tupleVal{items: []value{y, p.lengths}}, nil
}

// constant is the value of a weight known at import.
func (r *torchRecurrent) constant(t *tensorVal, what string) (*canon.Tensor, error) {
	switch {
	case t.konst != nil:
		return t.konst, nil
	case t.ref != nil:
		return t.ref.load(r.c.in.b.a, t.path)
	}
	if v := r.c.b().info(t); v.Const != nil {
		return v.Const, nil
	}
	return nil, r.c.errf("%s is computed at run time; only weights known at import are supported", what)
}

// stacked builds one canonical weight (directions stacked on a new first
// axis) from PyTorch's per-direction tensors, reordering the gates; sets
// is 2 for the bias (b_ih then b_hh).
func (r *torchRecurrent) stacked(parts []*canon.Tensor, sets int, name string) (*tensorVal, error) {
	from, to := "", ""
	switch r.mode {
	case "lstm":
		from, to = canon.TorchLSTMGates, canon.LSTMGates
	case "gru":
		from, to = canon.TorchGRUGates, canon.GRUGates
	default:
		from, to = canon.RNNGates, canon.RNNGates
	}
	out := &canon.Tensor{Name: name, DType: parts[0].DType}
	for _, p := range parts {
		if p.DType != out.DType || !sameShape(p.Shape, parts[0].Shape) {
			return nil, r.c.errf("weights of %s differ in type or rank", name)
		}
		q, err := canon.ReorderGates(p, 0, sets, from, to)
		if err != nil {
			return nil, r.c.errf("%v", err)
		}
		out.Data = append(out.Data, q.Data...)
	}
	out.Shape = append([]int64{int64(len(parts))}, parts[0].Shape...)
	return &tensorVal{konst: out}, nil
}

// layerWeights returns W, R and B (nil without biases) of layer l.
func (r *torchRecurrent) layerWeights(l int) (w, rr, b *tensorVal, err error) {
	per := 2
	if r.hasBias {
		per = 4
	}
	var ws, rs, bs []*canon.Tensor
	for d := 0; d < r.dirs; d++ {
		base := (l*r.dirs + d) * per
		get := func(k int, what string) *canon.Tensor {
			if err != nil {
				return nil
			}
			var t *canon.Tensor
			t, err = r.constant(r.params[base+k], fmt.Sprintf("layer %d %s", l, what))
			return t
		}
		ws = append(ws, get(0, "w_ih"))
		rs = append(rs, get(1, "w_hh"))
		if r.hasBias {
			bi, bh := get(2, "b_ih"), get(3, "b_hh")
			if err == nil {
				if bi.DType != bh.DType || len(bi.Shape) != 1 || len(bh.Shape) != 1 || bi.Shape[0] != bh.Shape[0] {
					return nil, nil, nil, r.c.errf("layer %d: b_ih %v and b_hh %v do not match", l, bi.Shape, bh.Shape)
				}
				bs = append(bs, &canon.Tensor{DType: bi.DType, Shape: []int64{2 * bi.Shape[0]}, Data: append(append([]byte{}, bi.Data...), bh.Data...)})
			}
		}
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if w, err = r.stacked(ws, 1, "W"); err != nil {
		return
	}
	if rr, err = r.stacked(rs, 1, "R"); err != nil {
		return
	}
	if r.hasBias {
		b, err = r.stacked(bs, 2, "B")
	}
	return
}

func (r *torchRecurrent) op() canon.RecurrentOp {
	rec := canon.Recurrent{HiddenSize: r.hidden, Direction: canon.Forward, BatchFirst: r.batchFirst}
	if r.dirs == 2 {
		rec.Direction = canon.Bidirectional
	}
	var op canon.RecurrentOp
	switch r.mode {
	case "lstm":
		op = &canon.LSTM{Recurrent: rec}
	case "gru":
		op = &canon.GRU{Recurrent: rec, LinearBeforeReset: true}
	default:
		op = &canon.RNN{Recurrent: rec}
	}
	op.Rec().Activations = canon.DefaultActivations(op, r.dirs)
	if r.mode == "rnn_relu" {
		for i := range op.Rec().Activations {
			op.Rec().Activations[i].Fn = canon.ActRelu
		}
	}
	return op
}

// states splits a PyTorch state (layers·dirs, batch, hidden) into one
// per layer, each in the canonical op's state layout; nil entries for a
// state that is absent or all zeros (the canonical default).
func (r *torchRecurrent) states(s *tensorVal) ([]*tensorVal, error) {
	out := make([]*tensorVal, r.layers)
	if s == nil {
		return out, nil
	}
	if v := r.c.b().info(s); v.Const != nil && allZero(v.Const) {
		return out, nil
	}
	parts := []*tensorVal{s}
	if r.layers > 1 {
		sizes := make([]int64, r.layers)
		for i := range sizes {
			sizes[i] = int64(r.dirs)
		}
		var err error
		if parts, err = r.c.b().emit(r.c.scope, &canon.Split{Axis: 0, Sizes: sizes}, []*tensorVal{s}, r.layers); err != nil {
			return nil, err
		}
	}
	for l, p := range parts {
		if r.batchFirst {
			var err error
			if p, err = r.c.b().emit1(r.c.scope, &canon.Transpose{Perm: []int64{1, 0, 2}}, p); err != nil {
				return nil, err
			}
		}
		out[l] = p
	}
	return out, nil
}

func allZero(t *canon.Tensor) bool {
	for _, b := range t.Data {
		if b != 0 {
			return false
		}
	}
	return true
}

// build emits the layers and returns (output, h_n[, c_n]) as PyTorch
// shapes them.
func (r *torchRecurrent) build(x, h0, c0, lens *tensorVal) (value, error) {
	b := r.c.b()
	var hs, cs []*tensorVal
	h0s, err := r.states(h0)
	if err != nil {
		return nil, err
	}
	c0s, err := r.states(c0)
	if err != nil {
		return nil, err
	}
	cur := x
	for l := 0; l < r.layers; l++ {
		w, rr, bias, err := r.layerWeights(l)
		if err != nil {
			return nil, err
		}
		ins := []*tensorVal{cur, w, rr, bias, lens, h0s[l]}
		nOut := 2
		if r.mode == "lstm" {
			ins = append(ins, c0s[l])
			nOut = 3
		}
		outs, err := b.emit(r.c.scope, r.op(), ins, nOut)
		if err != nil {
			return nil, err
		}
		// Y is (seq, dirs, batch, hidden), or (batch, seq, dirs, hidden)
		// batch first; PyTorch's output joins the directions:
		// (seq, batch, dirs·hidden) or (batch, seq, dirs·hidden).
		y := outs[0]
		if !r.batchFirst {
			if y, err = b.emit1(r.c.scope, &canon.Transpose{Perm: []int64{0, 2, 1, 3}}, y); err != nil {
				return nil, err
			}
		}
		if cur, err = b.emit1(r.c.scope, &canon.Reshape{Shape: []int64{0, 0, -1}}, y); err != nil {
			return nil, err
		}
		for k, st := range outs[1:] {
			if r.batchFirst {
				if st, err = b.emit1(r.c.scope, &canon.Transpose{Perm: []int64{1, 0, 2}}, st); err != nil {
					return nil, err
				}
			}
			if k == 0 {
				hs = append(hs, st)
			} else {
				cs = append(cs, st)
			}
		}
	}
	join := func(parts []*tensorVal) (*tensorVal, error) {
		if len(parts) == 1 {
			return parts[0], nil
		}
		return b.emit1(r.c.scope, &canon.Concat{Axis: 0}, parts...)
	}
	hn, err := join(hs)
	if err != nil {
		return nil, err
	}
	res := &tupleVal{items: []value{cur, hn}}
	if r.mode == "lstm" {
		cn, err := join(cs)
		if err != nil {
			return nil, err
		}
		res.items = append(res.items, cn)
	}
	return res, nil
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
