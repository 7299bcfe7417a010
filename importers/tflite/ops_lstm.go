package tfliteimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// UNIDIRECTIONAL_SEQUENCE_LSTM input slots.
const (
	lstmInput         = 0
	lstmInputWeights  = 1 // i, f, c, o at 1..4
	lstmRecurrent     = 5 // i, f, c, o at 5..8
	lstmPeephole      = 9 // i, f, o at 9..11
	lstmBias          = 12
	lstmProjection    = 16
	lstmProjBias      = 17
	lstmOutputState   = 18
	lstmCellState     = 19
	lstmLayerNormFrom = 20
)

// tflite gate g (0 i, 1 f, 2 c, 3 o) for each canonical gate letter.
var lstmGateSlot = map[byte]int{'i': 0, 'f': 1, 'c': 2, 'o': 3}

// convSequenceLSTM is the float UNIDIRECTIONAL_SEQUENCE_LSTM as one
// canonical LSTM: TFLite's per-gate matrices are stacked in the canonical
// gate order (iofc), its state tensors start at zero (the canonical graph
// has no state across runs: each run is one sequence from zero states).
func convSequenceLSTM(c *opCtx) error {
	o, err := optionsOf[tflitefb.UnidirectionalSequenceLSTMOptions](c, tflitefb.BuiltinOptionsUnidirectionalSequenceLSTMOptions)
	if err != nil {
		return err
	}
	b := c.b
	x, err := c.need(lstmInput)
	if err != nil {
		return err
	}
	if b.tensor(x).dtype != tflitefb.TensorTypeFLOAT32 {
		if b.tensor(x).dtype == tflitefb.TensorTypeINT8 {
			return c.integerLSTM(o)
		}
		return c.integerLSTMRefusal()
	}
	for k := lstmInputWeights; k < lstmBias+4; k++ {
		if w := c.in(k); w >= 0 && b.tensor(w).dtype != tflitefb.TensorTypeFLOAT32 && !b.isWeight(w) {
			return c.errf("input %d is %s; hybrid (quantized-weight) LSTMs are not supported", k, tflitefb.EnumNamesTensorType[b.tensor(w).dtype])
		}
	}
	if c.in(lstmInputWeights) < 0 || c.in(lstmRecurrent) < 0 {
		return c.errf("a coupled input-forget gate (CIFG: no input gate weights) is not supported: TFLite sets i = 1 - f, the canonical LSTM couples the other way")
	}
	if c.in(lstmProjection) >= 0 || c.in(lstmProjBias) >= 0 {
		return c.errf("an LSTM with a projection layer is not supported")
	}
	for k := lstmLayerNormFrom; k < len(c.op.inputs); k++ {
		if c.in(k) >= 0 {
			return c.errf("a layer-normalized LSTM is not supported")
		}
	}
	if o.ProjClip() != 0 {
		return c.errf("proj_clip %g is not supported (there is no projection layer to clip)", o.ProjClip())
	}
	if o.DiagonalRecurrentTensors() {
		return c.errf("diagonal recurrent weights are not supported")
	}
	for _, k := range []int{lstmOutputState, lstmCellState} {
		if s := c.in(k); s >= 0 && b.isConst(s) {
			return c.errf("state input %d has constant data; only zero initial states (variable tensors) are supported", k)
		}
	}
	var act canon.RNNActivation
	switch o.FusedActivationFunction() {
	case tflitefb.ActivationFunctionTypeTANH:
		act = canon.RNNActivation{Fn: canon.ActTanh}
	case tflitefb.ActivationFunctionTypeRELU:
		act = canon.RNNActivation{Fn: canon.ActRelu}
	case tflitefb.ActivationFunctionTypeNONE:
		act = canon.RNNActivation{Fn: canon.ActAffine, Alpha: 1}
	default:
		return c.errf("cell activation %s is not supported", tflitefb.EnumNamesActivationFunctionType[o.FusedActivationFunction()])
	}
	xs := b.tensor(x).shape
	if len(xs) != 3 {
		return c.errf("input has shape %v; want rank 3", xs)
	}
	wi := b.tensor(c.in(lstmInputWeights)).shape
	if len(wi) != 2 {
		return c.errf("input weights have shape %v; want (cells, inputs)", wi)
	}
	hidden, inputs := wi[0], wi[1]
	name := b.base(c.out(0))
	l := &lstmWeights{c: c, hidden: hidden, inputs: inputs}
	if o.CellClip() != 0 {
		return c.unrolledLSTM(l, x, act, o.CellClip(), o.TimeMajor())
	}
	w, err := l.tensor(name+"/W", lstmInputWeights, canon.LSTMGates, inputs, []int64{1, 4 * hidden, inputs}, "DGI")
	if err != nil {
		return err
	}
	r, err := l.tensor(name+"/R", lstmRecurrent, canon.LSTMGates, hidden, []int64{1, 4 * hidden, hidden}, "DGI")
	if err != nil {
		return err
	}
	bd, err := l.stack(lstmBias, canon.LSTMGates, 1)
	if err != nil {
		return err
	}
	// The canonical bias holds the input and the recurrent halves.
	bd = append(bd, make([]byte, len(bd))...)
	bias := b.addConst(&canon.Tensor{Name: name + "/B", DType: canon.Float32, Shape: []int64{1, 8 * hidden}, Layout: "DG", Data: bd})
	peep := ""
	if c.in(lstmPeephole) >= 0 {
		if peep, err = l.tensor(name+"/P", lstmPeephole, "iof", 1, []int64{1, 3 * hidden}, "DG"); err != nil {
			return err
		}
	}
	xv, err := b.value(x, fileForm)
	if err != nil {
		return err
	}
	op := &canon.LSTM{Recurrent: canon.Recurrent{HiddenSize: hidden, Direction: canon.Forward,
		Activations: []canon.RNNActivation{{Fn: canon.ActSigmoid}, act, act}, BatchFirst: !o.TimeMajor()}}
	yAll := b.fresh(name + "/y")
	b.emit(name, op, []string{xv, w, r, bias, "", "", "", peep}, yAll)
	y := c.out(0)
	b.define(y, b.node(name, &canon.Reshape{Shape: append([]int64{}, b.tensor(y).shape...)}, yAll), fileForm)
	return nil
}

// lstmWeights reads an LSTM's per-gate tensors.
type lstmWeights struct {
	c              *opCtx
	hidden, inputs int64
}

// stack concatenates the float32 data of the gates in letters (TFLite
// slots from `from`), each hidden×cols.
func (l *lstmWeights) stack(from int, letters string, cols int64) ([]byte, error) {
	c, b := l.c, l.c.b
	var data []byte
	for _, g := range []byte(letters) {
		slot := from + lstmGateSlot[g]
		if from == lstmPeephole {
			slot = from + map[byte]int{'i': 0, 'f': 1, 'o': 2}[g]
		}
		i := c.in(slot)
		if i < 0 {
			return nil, c.errf("input %d (gate %c) is required", slot, g)
		}
		t, err := b.weightData(i)
		if err != nil {
			return nil, err
		}
		if t.DType != canon.Float32 && t.DType != canon.Float16 {
			return nil, c.errf("%s is %s; float weights are needed", b.tensorTitle(i), t.DType)
		}
		if canon.NumElements(t.Shape) != l.hidden*cols {
			return nil, c.errf("%s has shape %v; want %d×%d", b.tensorTitle(i), t.Shape, l.hidden, cols)
		}
		v, err := t.Float64s()
		if err != nil {
			return nil, c.errf("%s: %v", b.tensorTitle(i), err)
		}
		for _, x := range v {
			data = appendF32(data, float32(x))
		}
	}
	return data, nil
}

// tensor stacks gates into a new initializer.
func (l *lstmWeights) tensor(name string, from int, letters string, cols int64, shape []int64, layout canon.Layout) (string, error) {
	data, err := l.stack(from, letters, cols)
	if err != nil {
		return "", err
	}
	return l.c.b.addConst(&canon.Tensor{Name: name, DType: canon.Float32, Shape: shape, Layout: layout, Data: data}), nil
}

func appendF32(b []byte, v float32) []byte {
	t := canon.NewFloat32Tensor("", []int64{1}, []float32{v})
	return append(b, t.Data...)
}
