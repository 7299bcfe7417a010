package tfliteexport

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

func init() {
	optable.Add(&writers, map[string]writer{
		"LSTM": {writeLSTM, "UNIDIRECTIONAL_SEQUENCE_LSTM per direction (reverse: time reversed by STRIDED_SLICE before and after), CONCATENATION of directions; sigmoid gates, tanh or relu cell, no clip or peepholes, zero initial states, full sequences; Y_h from the last steps; when Y_c is read, the steps unrolled into FULLY_CONNECTED, SPLIT, LOGISTIC, TANH, MUL, ADD"},
	})
}

// writeLSTM writes one forward LSTM layer as UNIDIRECTIONAL_SEQUENCE_LSTM:
// the canonical iofc gate blocks become TFLite's per-gate tensors, the
// input and recurrent biases one bias per gate, and the states zeroed
// variable tensors.
func writeLSTM(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.LSTM)
	used := func(i int) bool {
		return i < len(n.Outputs) && n.Outputs[i] != "" && (len(e.consumers[n.Outputs[i]]) > 0 || e.isOutput[n.Outputs[i]])
	}
	switch {
	case op.Clip != 0:
		return nodeErr(n, "clip %g bounds the gates; TFLite's cell_clip bounds the cell state instead", op.Clip)
	case op.InputForget:
		return nodeErr(n, "input_forget couples f = 1 - i; TFLite's CIFG couples i = 1 - f")
	}
	// UNIDIRECTIONAL_SEQUENCE_LSTM keeps its last cell state in a variable
	// tensor: when Y_c is read, the steps are written out instead.
	stepped := used(2)
	var dirs []bool // reversed, per direction in canonical order
	switch op.Direction {
	case canon.Forward:
		dirs = []bool{false}
	case canon.Reverse:
		dirs = []bool{true}
	default:
		dirs = []bool{false, true}
	}
	for _, slot := range []int{canon.RecSequenceLens, canon.RecInitialH, canon.RecInitialC, canon.RecP} {
		if slot >= len(n.Inputs) || n.Inputs[slot] == "" {
			continue
		}
		c := e.constOf(n.Inputs[slot])
		if slot == canon.RecSequenceLens && c != nil && fullLengths(e, n, c) {
			continue
		}
		if slot == canon.RecP || c == nil || !allZero(c, slot == canon.RecSequenceLens) {
			return nodeErr(n, "input %s: TFLite's LSTM starts from zero states, runs every sequence to its end and has no peepholes here", (&canon.LSTM{}).Signature().Inputs[slot].Name)
		}
	}
	w, r := e.constOf(n.Inputs[canon.RecW]), e.constOf(n.Inputs[canon.RecR])
	if w == nil || r == nil {
		return nodeErr(n, "its weights are computed at run time; TFLite's LSTM takes constant weights")
	}
	wv, err := floats(w)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	rv, err := floats(r)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	h := op.HiddenSize
	bias := make([]float32, 8*h*int64(len(dirs)))
	if len(n.Inputs) > canon.RecB && n.Inputs[canon.RecB] != "" {
		bt := e.constOf(n.Inputs[canon.RecB])
		if bt == nil {
			return nodeErr(n, "its bias is computed at run time")
		}
		if bias, err = floats(bt); err != nil {
			return nodeErr(n, "%v", err)
		}
	}
	xs, err := e.shape(n.Inputs[canon.RecX])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	x, err := e.input(n.Inputs[canon.RecX], nil)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	in := xs[2]
	timeAxis, batch := 0, xs[1]
	if op.BatchFirst {
		timeAxis, batch = 1, xs[0]
	}
	steps := xs[timeAxis]
	seqShape := []int32{int32(xs[0]), int32(xs[1]), int32(h)}
	var seqs, lasts, lastCs []int32
	for k, reversed := range dirs {
		acts := op.Activations[3*k : 3*k+3]
		if acts[0].Fn != canon.ActSigmoid || acts[1] != acts[2] {
			return nodeErr(n, "activations %v: TFLite's LSTM has sigmoid gates and one cell activation", acts)
		}
		var act tflitefb.ActivationFunctionType
		switch acts[1].Fn {
		case canon.ActTanh:
			act = tflitefb.ActivationFunctionTypeTANH
		case canon.ActRelu:
			act = tflitefb.ActivationFunctionTypeRELU
		default:
			return nodeErr(n, "cell activation %v: TFLite's LSTM takes tanh or relu", acts[1].Fn)
		}
		wk, rk, bk := wv[int64(k)*4*h*in:int64(k+1)*4*h*in], rv[int64(k)*4*h*h:int64(k+1)*4*h*h], bias[int64(k)*8*h:int64(k+1)*8*h]
		if stepped {
			cellAct := tflitefb.BuiltinOperatorTANH
			if act == tflitefb.ActivationFunctionTypeRELU {
				cellAct = tflitefb.BuiltinOperatorRELU
			}
			st := &lstmStepper{e: e, n: n, x: x, timeAxis: timeAxis, steps: steps, batch: batch, in: in, h: h, act: cellAct}
			hs, lastH, lastC, err := st.run(wk, rk, bk, reversed)
			if err != nil {
				return err
			}
			stepShape := append([]int32{}, seqShape...)
			stepShape[timeAxis] = 1
			var steps3 []int32
			for _, ht := range hs {
				t3, err := e.scratch(n.Name+"/h_step", stepShape, canon.Float32)
				if err != nil {
					return err
				}
				if err := e.reshapeInto(ht, t3, stepShape); err != nil {
					return err
				}
				steps3 = append(steps3, t3)
			}
			seq, err := e.scratch(n.Name+"/sequence", seqShape, canon.Float32)
			if err != nil {
				return err
			}
			e.join(steps3, seq, int32(timeAxis), seqShape)
			var lasts2 [2]int32
			for j, v := range []int32{lastH, lastC} {
				if lasts2[j], err = e.scratch(n.Name+"/final", stepShape, canon.Float32); err != nil {
					return err
				}
				if err := e.reshapeInto(v, lasts2[j], stepShape); err != nil {
					return err
				}
			}
			seqs, lasts, lastCs = append(seqs, seq), append(lasts, lasts2[0]), append(lastCs, lasts2[1])
			continue
		}
		src := x
		if reversed {
			if src, err = e.reverseTime(n, x, timeAxis); err != nil {
				return err
			}
		}
		seq, err := e.lstmDirection(n, src, wk, rk, bk, in, h, batch, seqShape, act, !op.BatchFirst)
		if err != nil {
			return err
		}
		// The last step TFLite computed is the direction's final state.
		lastShape := append([]int32{}, seqShape...)
		lastShape[timeAxis] = 1
		last, err := e.scratch(n.Name+"/last", lastShape, canon.Float32)
		if err != nil {
			return err
		}
		begin := []int32{0, 0, 0}
		begin[timeAxis] = int32(steps - 1)
		if err := e.slice4(n, seq, last, begin, lastShape); err != nil {
			return err
		}
		if reversed {
			if seq, err = e.reverseTime(n, seq, timeAxis); err != nil {
				return err
			}
		}
		seqs, lasts = append(seqs, seq), append(lasts, last)
	}
	// Y is (T, D, B, H) or (B, T, D, H): each direction gains its axis.
	dirAxis := int32(1)
	if op.BatchFirst {
		dirAxis = 2
	}
	if used(0) {
		ys, err := e.shape(n.Outputs[0])
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		one := fileShape(ys, nil)
		one[dirAxis] = 1
		var parts []int32
		for _, sq := range seqs {
			p, err := e.scratch(n.Name+"/direction", one, canon.Float32)
			if err != nil {
				return err
			}
			if err := e.reshapeInto(sq, p, one); err != nil {
				return err
			}
			parts = append(parts, p)
		}
		y, err := e.define(n.Outputs[0], nil)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		e.join(parts, y, dirAxis, fileShape(ys, nil))
	}
	// Y_h is (D, B, H) or (B, D, H): the last steps side by side.
	if used(1) {
		ys, err := e.shape(n.Outputs[1])
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		yh, err := e.define(n.Outputs[1], nil)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		axis := int32(0)
		if op.BatchFirst {
			axis = 1
		}
		// A time-major last step (1, B, H) is already (D=1, B, H); a
		// batch-first one (B, 1, H) is (B, D=1, H).
		e.join(lasts, yh, axis, fileShape(ys, nil))
	}
	if stepped {
		ys, err := e.shape(n.Outputs[2])
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		yc, err := e.define(n.Outputs[2], nil)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		axis := int32(0)
		if op.BatchFirst {
			axis = 1
		}
		e.join(lastCs, yc, axis, fileShape(ys, nil))
	}
	return nil
}

// join concatenates parts along axis into out, or copies a single part by
// RESHAPE.
func (e *exporter) join(parts []int32, out int32, axis int32, shape []int32) {
	if len(parts) == 1 {
		_ = e.reshapeInto(parts[0], out, shape)
		return
	}
	e.concat(parts, out, axis)
}

// reverseTime writes STRIDED_SLICE with stride -1 along the time axis of
// a 3-D tensor.
func (e *exporter) reverseTime(n *canon.Node, x int32, axis int) (int32, error) {
	shape := e.m.tensors[x].shape
	out, err := e.scratch(n.Name+"/reversed", shape, canon.Float32)
	if err != nil {
		return 0, err
	}
	begin, end, stride := []int32{0, 0, 0}, append([]int32{}, shape...), []int32{1, 1, 1}
	begin[axis], end[axis], stride[axis] = shape[axis]-1, 0, -1
	bt, err := e.constI32(n.Name+"/rev_begin", []int32{3}, begin)
	if err != nil {
		return 0, err
	}
	et, err := e.constI32(n.Name+"/rev_end", []int32{3}, end)
	if err != nil {
		return 0, err
	}
	st, err := e.constI32(n.Name+"/rev_strides", []int32{3}, stride)
	if err != nil {
		return 0, err
	}
	mask := int32(1) << axis // to the axis' start: an end of -1 would count from the end
	e.emit(tflitefb.BuiltinOperatorSTRIDED_SLICE, []int32{x, bt, et, st}, []int32{out}, tflitefb.BuiltinOptionsStridedSliceOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.StridedSliceOptionsStart(b)
		tflitefb.StridedSliceOptionsAddEndMask(b, mask)
		return tflitefb.StridedSliceOptionsEnd(b)
	})
	return out, nil
}

// lstmDirection writes one UNIDIRECTIONAL_SEQUENCE_LSTM over x from one
// direction's iofc weight blocks and biases.
func (e *exporter) lstmDirection(n *canon.Node, x int32, wv, rv, bias []float32, in, h, batch int64, seqShape []int32, act tflitefb.ActivationFunctionType, timeMajor bool) (int32, error) {
	// Canonical blocks are i, o, f, c; TFLite lists i, f, c, o.
	block := map[byte]int64{'i': 0, 'o': 1, 'f': 2, 'c': 3}
	gates := "ifco"
	ins := []int32{x}
	for _, m := range []struct {
		v    []float32
		cols int64
		what string
	}{{wv, in, "input_to"}, {rv, h, "recurrent_to"}} {
		for k := range gates {
			b := block[gates[k]]
			idx, err := e.constF32(n.Name+"/"+m.what+"_"+string(gates[k]), []int32{int32(h), int32(m.cols)}, m.v[b*h*m.cols:(b+1)*h*m.cols])
			if err != nil {
				return 0, err
			}
			ins = append(ins, idx)
		}
	}
	ins = append(ins, -1, -1, -1) // no peepholes
	for k := range gates {
		b := block[gates[k]]
		v := make([]float32, h)
		for j := range v {
			v[j] = bias[b*h+int64(j)] + bias[4*h+b*h+int64(j)]
		}
		idx, err := e.constF32(n.Name+"/bias_"+string(gates[k]), []int32{int32(h)}, v)
		if err != nil {
			return 0, err
		}
		ins = append(ins, idx)
	}
	ins = append(ins, -1, -1) // no projection
	for _, what := range []string{"output_state", "cell_state"} {
		idx, err := e.scratch(n.Name+"/"+what, []int32{int32(batch), int32(h)}, canon.Float32)
		if err != nil {
			return 0, err
		}
		e.m.tensors[idx].variable = true
		ins = append(ins, idx)
	}
	ins = append(ins, -1, -1, -1, -1) // no layer norm
	seq, err := e.scratch(n.Name+"/sequence", seqShape, canon.Float32)
	if err != nil {
		return 0, err
	}
	e.emit(tflitefb.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, ins, []int32{seq}, tflitefb.BuiltinOptionsUnidirectionalSequenceLSTMOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.UnidirectionalSequenceLSTMOptionsStart(b)
		tflitefb.UnidirectionalSequenceLSTMOptionsAddFusedActivationFunction(b, act)
		tflitefb.UnidirectionalSequenceLSTMOptionsAddTimeMajor(b, timeMajor)
		return tflitefb.UnidirectionalSequenceLSTMOptionsEnd(b)
	})
	return seq, nil
}

// sliceLast writes STRIDED_SLICE of begin/size into out, reshaped to out's
// shape when it differs (a batch-first Y_h moves the step axis first).
func (e *exporter) sliceLast(n *canon.Node, in, out int32, begin, size []int32) error {
	want := e.m.tensors[out].shape
	same := len(want) == len(size)
	for i := range size {
		same = same && want[i] == size[i]
	}
	if same {
		return e.slice4(n, in, out, begin, size)
	}
	mid, err := e.scratch(n.Name+"/last", size, canon.Float32)
	if err != nil {
		return err
	}
	if err := e.slice4(n, in, mid, begin, size); err != nil {
		return err
	}
	return e.reshapeInto(mid, out, want)
}

func allZero(t *canon.Tensor, ints bool) bool {
	if ints {
		return false
	}
	v, err := t.Float64s()
	if err != nil {
		return false
	}
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// fullLengths reports whether sequence_lens gives every sequence its full
// length.
func fullLengths(e *exporter, n *canon.Node, c *canon.Tensor) bool {
	xs, err := e.shape(n.Inputs[canon.RecX])
	if err != nil {
		return false
	}
	steps := xs[0]
	if n.Op.(*canon.LSTM).BatchFirst {
		steps = xs[1]
	}
	v, err := c.Int64s()
	if err != nil {
		return false
	}
	for _, l := range v {
		if l != steps {
			return false
		}
	}
	return true
}
