package mxnetimport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&converters, map[string]mxOp{
		"RNN": {convRNN, []string{"LSTM", "GRU", "RNN", "Split", "Transpose", "Reshape", "Concat"}},
	})
}

// mxRNNModes are the RNN op's modes: gate order (PyTorch's: MXNet follows
// cuDNN, as PyTorch does) and gates per layer.
var mxRNNModes = map[string]string{"lstm": canon.TorchLSTMGates, "gru": canon.TorchGRUGates, "rnn_tanh": canon.RNNGates, "rnn_relu": canon.RNNGates}

// convRNN reads MXNet's fused RNN(data, parameters, state[, state_cell]).
// data is (seq, batch, input); parameters is one flat vector holding, for
// each layer and direction (forward then reverse), i2h_weight (gates·H, in)
// and h2h_weight (gates·H, H), followed by every i2h_bias and h2h_bias in
// the same order (Gluon's _RNNLayer packs it so). Each layer becomes one
// canonical node with its weights reordered to the canonical gates; GRU is
// cuDNN's, i.e. linear_before_reset.
func convRNN(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("state_size"); err != nil {
		return nil, err
	}
	if err := c.a.required("mode"); err != nil {
		return nil, err
	}
	mode := c.a.str("mode", "")
	from, ok := mxRNNModes[mode]
	if !ok {
		return nil, c.errf("mode %q is not lstm, gru, rnn_tanh or rnn_relu", mode)
	}
	H, err := c.a.int("state_size", 0)
	if err != nil {
		return nil, err
	}
	layers, err := c.a.int("num_layers", 1)
	if err != nil {
		return nil, err
	}
	bidir, err := c.a.bool("bidirectional", false)
	if err != nil {
		return nil, err
	}
	stateOuts, err := c.a.bool("state_outputs", false)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"projection_size", "lstm_state_clip_min", "lstm_state_clip_max"} {
		if v := c.a.str(k, "None"); v != "None" && v != "" {
			return nil, c.errf("%s=%s has no canonical equivalent (ONNX's clip bounds the gates, not the cell state)", k, v)
		}
	}
	if seqLen, err := c.a.bool("use_sequence_length", false); err != nil || seqLen {
		if err != nil {
			return nil, err
		}
		return nil, c.errf("use_sequence_length=True is not supported: pass padded sequences")
	}
	if H < 1 || H > 1<<20 || layers < 1 || layers > 1000 {
		return nil, c.errf("state_size %d and num_layers %d are out of range", H, layers)
	}
	dirs := int64(1)
	if bidir {
		dirs = 2
	}
	gates := int64(len(from))
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.vals[x].StaticShape()
	if !ok || len(xs) != 3 {
		return nil, c.errf("data must be (seq, batch, input) with a known shape; pass the input shapes")
	}
	// parameters: its length follows from the sizes.
	total := int64(0)
	in := xs[2]
	for l := int64(0); l < layers; l++ {
		total += dirs * (gates*H*in + gates*H*H + 2*gates*H)
		in = dirs * H
	}
	pname, err := b.param(c, 1, canon.RoleData, []int64{total})
	if err != nil {
		return nil, err
	}
	use, ok := b.inits[pname]
	if !ok {
		return nil, c.errf("parameters (%s) must be in the params file: weights computed in the graph are not supported", pname)
	}
	flat := use.t
	if total <= 0 || flat.ByteSize() != total*int64(flat.DType.Size()) || int64(len(flat.Data)) != flat.ByteSize() {
		return nil, c.errf("parameters hold %d values; state_size %d, %d layers and input size %d need %d", flat.NumElements(), H, layers, xs[2], total)
	}
	if flat.DType != canon.Float32 && flat.DType != canon.Float16 && flat.DType != canon.Float64 {
		return nil, c.errf("parameters are %s, want floating point", flat.DType)
	}
	if use.node == c.n.Name {
		// Read only here: the per-layer copies replace it.
		for i, t := range b.g.Initializers {
			if t == flat {
				b.g.Initializers = append(b.g.Initializers[:i], b.g.Initializers[i+1:]...)
				break
			}
		}
	}
	esz := int64(flat.DType.Size())
	off := int64(0)
	take := func(n int64) []byte {
		p := flat.Data[off*esz : (off+n)*esz]
		off += n
		return p
	}
	type dirW struct{ w, r, bw, br []byte }
	per := make([][]dirW, layers)
	in = xs[2]
	ins := make([]int64, layers)
	for l := range per {
		ins[l] = in
		for d := int64(0); d < dirs; d++ {
			per[l] = append(per[l], dirW{w: take(gates * H * in), r: take(gates * H * H)})
		}
		in = dirs * H
	}
	for l := range per {
		for d := range per[l] {
			per[l][d].bw, per[l][d].br = take(gates*H), take(gates*H)
		}
	}
	to := map[string]string{"lstm": canon.LSTMGates, "gru": canon.GRUGates}[mode]
	if to == "" {
		to = canon.RNNGates
	}
	stack := func(name string, shape []int64, sets int, parts [][]byte) (string, error) {
		t := &canon.Tensor{Name: c.n.Name + "_" + name, DType: flat.DType, Shape: append([]int64{dirs}, shape...)}
		for _, p := range parts {
			q, err := canon.ReorderGates(&canon.Tensor{Name: t.Name, DType: flat.DType, Shape: shape, Data: p}, 0, sets, from, to)
			if err != nil {
				return "", c.errf("%v", err)
			}
			t.Data = append(t.Data, q.Data...)
		}
		if err := b.reserve(c, name, t.DType, t.Shape); err != nil {
			return "", err
		}
		return b.constant(t), nil
	}
	// States (layers·dirs, batch, H) split per layer.
	splitState := func(k int) ([]string, error) {
		out := make([]string, layers)
		if k >= len(c.n.Inputs) {
			return out, nil
		}
		s, err := b.in(c, k)
		if err != nil {
			return nil, err
		}
		if layers == 1 {
			out[0] = s
			return out, nil
		}
		sizes := ones(int(layers), dirs)
		for l := range out {
			out[l] = b.fresh(fmt.Sprintf("%s_state%d_l%d", c.n.Name, k, l))
		}
		return out, b.emit(b.fresh(c.n.Name+"_split_state"), &canon.Split{Axis: 0, Sizes: sizes}, []string{s}, out...)
	}
	h0, err := splitState(2)
	if err != nil {
		return nil, err
	}
	var c0 []string
	if mode == "lstm" {
		if c0, err = splitState(3); err != nil {
			return nil, err
		}
	}
	cur := x
	var hs, cs []string
	for l := int64(0); l < layers; l++ {
		var ws, rs, bs [][]byte
		for _, d := range per[l] {
			ws, rs = append(ws, d.w), append(rs, d.r)
			bs = append(bs, append(append([]byte{}, d.bw...), d.br...))
		}
		w, err := stack(fmt.Sprintf("l%d_W", l), []int64{gates * H, ins[l]}, 1, ws)
		if err != nil {
			return nil, err
		}
		r, err := stack(fmt.Sprintf("l%d_R", l), []int64{gates * H, H}, 1, rs)
		if err != nil {
			return nil, err
		}
		bias, err := stack(fmt.Sprintf("l%d_B", l), []int64{2 * gates * H}, 2, bs)
		if err != nil {
			return nil, err
		}
		rec := canon.Recurrent{HiddenSize: H, Direction: canon.Forward}
		if bidir {
			rec.Direction = canon.Bidirectional
		}
		var op canon.RecurrentOp
		switch mode {
		case "lstm":
			op = &canon.LSTM{Recurrent: rec}
		case "gru":
			op = &canon.GRU{Recurrent: rec, LinearBeforeReset: true}
		default:
			op = &canon.RNN{Recurrent: rec}
		}
		op.Rec().Activations = canon.DefaultActivations(op, int(dirs))
		if mode == "rnn_relu" {
			for i := range op.Rec().Activations {
				op.Rec().Activations[i].Fn = canon.ActRelu
			}
		}
		name := b.fresh(fmt.Sprintf("%s_l%d", c.n.Name, l))
		inputs := []string{cur, w, r, bias, "", h0[l]}
		outs := []string{b.fresh(name + "_y"), b.fresh(name + "_h")}
		if mode == "lstm" {
			inputs = append(inputs, c0[l])
			outs = append(outs, b.fresh(name+"_c"))
			cs = append(cs, outs[2])
		}
		for len(inputs) > 0 && inputs[len(inputs)-1] == "" {
			inputs = inputs[:len(inputs)-1]
		}
		hs = append(hs, outs[1])
		if err := b.emit(name, op, inputs, outs...); err != nil {
			return nil, err
		}
		// (seq, dirs, batch, H) -> (seq, batch, dirs·H)
		t := b.fresh(name + "_tnc")
		if err := b.emit(t, &canon.Transpose{Perm: []int64{0, 2, 1, 3}}, []string{outs[0]}, t); err != nil {
			return nil, err
		}
		cur = b.fresh(name + "_out")
		if l == layers-1 {
			cur = b.fresh(c.n.Name)
		}
		if err := b.emit(cur, &canon.Reshape{Shape: []int64{0, 0, -1}}, []string{t}, cur); err != nil {
			return nil, err
		}
	}
	res := []string{cur}
	if !stateOuts {
		return res, nil
	}
	for k, parts := range [][]string{hs, cs} {
		if len(parts) == 0 {
			continue
		}
		if len(parts) == 1 {
			res = append(res, parts[0])
			continue
		}
		o := b.fresh(fmt.Sprintf("%s_state%d", c.n.Name, k))
		if err := b.emit(o, &canon.Concat{Axis: 0}, parts, o); err != nil {
			return nil, err
		}
		res = append(res, o)
	}
	return res, nil
}
