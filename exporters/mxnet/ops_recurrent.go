package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	w := opWriter{"RNN (mode lstm/gru/rnn_tanh/rnn_relu: cuDNN's cells, forward, reverse (over the reversed sequence) or bidirectional, constant weights packed into its flat parameters in cuDNN's gate order; " +
		"no peepholes, clip, sequence lengths or other activations), with reshape/transpose around it", writeRNN}
	optable.Add(&writers, map[string]opWriter{"LSTM": w, "GRU": w, "RNN": w})
}

// writeRNN writes one canonical recurrent layer as MXNet's fused RNN with
// num_layers=1: data (seq, batch, input), parameters = i2h_weight,
// h2h_weight (forward then reverse), then the biases in the same order,
// each in PyTorch/cuDNN gate order (i,f,g,o; r,z,n).
func writeRNN(e *exporter, n *canon.Node) error {
	op := n.Op.(canon.RecurrentOp)
	r := op.Rec()
	has := func(i int) bool { return i < len(n.Inputs) && n.Inputs[i] != "" }
	mode, from, to := "", op.Gates(), ""
	same := func(fns ...canon.RNNActFn) bool {
		for i, a := range r.Activations {
			if a.Fn != fns[i%len(fns)] {
				return false
			}
		}
		return true
	}
	switch o := op.(type) {
	case *canon.LSTM:
		if o.InputForget || has(canon.RecP) || !same(canon.ActSigmoid, canon.ActTanh, canon.ActTanh) {
			return fmt.Errorf("MXNet's LSTM has no peepholes, input_forget or activations other than sigmoid/tanh/tanh")
		}
		mode, to = "lstm", canon.TorchLSTMGates
	case *canon.GRU:
		if !o.LinearBeforeReset || !same(canon.ActSigmoid, canon.ActTanh) {
			return fmt.Errorf("MXNet's GRU is cuDNN's: linear_before_reset with sigmoid/tanh only")
		}
		mode, to = "gru", canon.TorchGRUGates
	default:
		switch {
		case same(canon.ActTanh):
			mode = "rnn_tanh"
		case same(canon.ActRelu):
			mode = "rnn_relu"
		default:
			return fmt.Errorf("MXNet's RNN takes tanh or relu only")
		}
		to = canon.RNNGates
	}
	if r.Clip != 0 || has(canon.RecSequenceLens) {
		return fmt.Errorf("MXNet's RNN has no clip or sequence lengths")
	}
	// A reverse-only layer is the forward layer over the reversed
	// sequence, its outputs reversed back (exact without sequence lengths).
	reverse := r.Direction == canon.Reverse
	wt, rt := e.consts[n.Inputs[canon.RecW]], e.consts[n.Inputs[canon.RecR]]
	if wt == nil || rt == nil {
		return fmt.Errorf("W and R must be constants: MXNet's RNN takes them packed in one parameter vector (convert with --optimize to fold weights an exporter computed, as PyTorch's ONNX export does)")
	}
	var bt *canon.Tensor
	if has(canon.RecB) {
		if bt = e.consts[n.Inputs[canon.RecB]]; bt == nil {
			return fmt.Errorf("B must be a constant: MXNet's RNN takes it packed in one parameter vector")
		}
	}
	dirs, H := int64(r.Direction.NumDirections()), r.HiddenSize
	G := int64(len(from)) * H
	esz := int64(wt.DType.Size())
	if rt.DType != wt.DType || (bt != nil && bt.DType != wt.DType) {
		return fmt.Errorf("W, R and B differ in dtype")
	}
	flat := &canon.Tensor{DType: wt.DType}
	part := func(t *canon.Tensor, d int64, lo, hi int64) *canon.Tensor {
		per := int64(len(t.Data)) / dirs
		return &canon.Tensor{Name: t.Name, DType: t.DType, Shape: []int64{(hi - lo) / esz}, Data: t.Data[d*per+lo : d*per+hi]}
	}
	reorder := func(t *canon.Tensor, rows int64) error {
		t.Shape = []int64{rows, t.Shape[0] / rows}
		q, err := canon.ReorderGates(t, 0, 1, from, to)
		if err != nil {
			return err
		}
		flat.Data = append(flat.Data, q.Data...)
		return nil
	}
	for d := int64(0); d < dirs; d++ {
		if err := reorder(part(wt, d, 0, int64(len(wt.Data))/dirs), G); err != nil {
			return err
		}
		if err := reorder(part(rt, d, 0, int64(len(rt.Data))/dirs), G); err != nil {
			return err
		}
	}
	for d := int64(0); d < dirs; d++ {
		for k := int64(0); k < 2; k++ {
			if bt == nil {
				flat.Data = append(flat.Data, make([]byte, G*esz)...) // MXNet always adds biases: zeros
				continue
			}
			if err := reorder(part(bt, d, k*G*esz, (k+1)*G*esz), G); err != nil {
				return err
			}
		}
	}
	flat.Shape = []int64{int64(len(flat.Data)) / esz}
	x, err := e.value(n.Inputs[canon.RecX])
	if err != nil {
		return err
	}
	swap := map[string]string{"axes": "(1, 0, 2)"}
	if r.BatchFirst {
		x = ref{e.add("transpose", n.Name+"_tnc", swap, 1, x), 0}
	}
	if reverse {
		x = ref{e.add("reverse", n.Name+"_reversed", map[string]string{"axis": "0"}, 1, x), 0}
	}
	pname := n.Name + "_parameters"
	for e.names[pname] {
		pname += "_"
	}
	params, err := e.param(pname, flat)
	if err != nil {
		return err
	}
	ins := []ref{x, params}
	_, lstm := op.(*canon.LSTM)
	batch, ok := e.shape(n.Inputs[canon.RecX])
	if !ok {
		return fmt.Errorf("the input's shape must be known: MXNet's RNN needs its initial states")
	}
	nb := batch[1]
	if r.BatchFirst {
		nb = batch[0]
	}
	states := []int{canon.RecInitialH}
	if lstm {
		states = append(states, canon.RecInitialC)
	}
	for _, s := range states {
		if has(s) {
			v, err := e.value(n.Inputs[s])
			if err != nil {
				return err
			}
			if r.BatchFirst {
				v = ref{e.add("transpose", n.Name+"_state_in", swap, 1, v), 0}
			}
			ins = append(ins, v)
			continue
		}
		z := e.add("_zeros", n.Name+"_zero_state", map[string]string{"shape": fmt.Sprintf("(%d, %d, %d)", dirs, nb, H), "dtype": "float32"}, 1)
		ins = append(ins, ref{z, 0})
	}
	nout := 1 + len(states)
	attrs := map[string]string{"mode": mode, "state_size": strconv.FormatInt(H, 10), "num_layers": "1",
		"bidirectional": boolean(dirs == 2), "state_outputs": "True", "p": "0"}
	idx := e.add("RNN", n.Name, attrs, nout, ins...)
	outs := n.Outputs
	if len(outs) > 0 && outs[0] != "" {
		// (seq, batch, dirs·H) -> (seq, dirs, batch, H) or, batch first,
		// (batch, seq, dirs, H).
		y := ref{idx, 0}
		if reverse {
			y = ref{e.add("reverse", n.Name+"_y_reversed", map[string]string{"axis": "0"}, 1, y), 0}
		}
		y = ref{e.add("reshape", n.Name+"_split_dirs", map[string]string{"shape": fmt.Sprintf("(0, 0, %d, %d)", dirs, H)}, 1, y), 0}
		perm := "(0, 2, 1, 3)"
		if r.BatchFirst {
			perm = "(1, 0, 2, 3)"
		}
		e.refs[outs[0]] = ref{e.add("transpose", outs[0], map[string]string{"axes": perm}, 1, y), 0}
	}
	for k := 1; k < len(outs) && k < nout; k++ {
		if outs[k] == "" {
			continue
		}
		s := ref{idx, k}
		if r.BatchFirst {
			s = ref{e.add("transpose", outs[k], swap, 1, s), 0}
		}
		e.refs[outs[k]] = s
	}
	return nil
}
