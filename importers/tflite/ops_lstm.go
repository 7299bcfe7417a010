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
		return c.errf("a %s UNIDIRECTIONAL_SEQUENCE_LSTM is not supported: its integer kernel (fixed-point gates with int16 cell state and TFLite's sigmoid/tanh approximations) has no exact canonical form; only float32 LSTMs are read",
			tflitefb.EnumNamesTensorType[b.tensor(x).dtype])
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
	if o.CellClip() != 0 || o.ProjClip() != 0 {
		return c.errf("cell_clip %g / proj_clip %g are not supported: TFLite clips the cell state, the canonical LSTM clips gate inputs", o.CellClip(), o.ProjClip())
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
	name := b.tensor(c.out(0)).name
	stack := func(what string, from int, letters string, cols int64, optional bool) (string, error) {
		var data []byte
		for _, g := range []byte(letters) {
			slot := from + lstmGateSlot[g]
			if from == lstmPeephole {
				slot = from + map[byte]int{'i': 0, 'f': 1, 'o': 2}[g]
			}
			i := c.in(slot)
			if i < 0 {
				if optional {
					return "", nil
				}
				return "", c.errf("input %d (%s, gate %c) is required", slot, what, g)
			}
			t, err := b.weightData(i)
			if err != nil {
				return "", err
			}
			if t.DType != canon.Float32 && t.DType != canon.Float16 {
				return "", c.errf("%s %s is %s; float weights are needed", what, b.tensorTitle(i), t.DType)
			}
			if canon.NumElements(t.Shape) != hidden*cols {
				return "", c.errf("%s %s has shape %v; want %d×%d", what, b.tensorTitle(i), t.Shape, hidden, cols)
			}
			f32, err := t.Float64s()
			if err != nil {
				return "", c.errf("%s: %v", what, err)
			}
			for _, v := range f32 {
				data = appendF32(data, float32(v))
			}
		}
		rows := int64(len(letters)) * hidden
		shape, layout := []int64{1, rows, cols}, canon.Layout("DGI")
		if cols == 1 {
			shape, layout = []int64{1, rows}, "DG"
		}
		return b.addConst(&canon.Tensor{Name: name + "/" + what, DType: canon.Float32, Shape: shape, Layout: layout, Data: data}), nil
	}
	w, err := stack("W", lstmInputWeights, canon.LSTMGates, inputs, false)
	if err != nil {
		return err
	}
	r, err := stack("R", lstmRecurrent, canon.LSTMGates, hidden, false)
	if err != nil {
		return err
	}
	bias, err := stack("B", lstmBias, canon.LSTMGates, 1, false)
	if err != nil {
		return err
	}
	// The canonical bias holds the input and the recurrent halves.
	bt := b.g.Initializers[len(b.g.Initializers)-1]
	bt.Data = append(bt.Data, make([]byte, len(bt.Data))...)
	bt.Shape = []int64{1, 8 * hidden}
	peep, err := stack("P", lstmPeephole, "iof", 1, true)
	if err != nil {
		return err
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

func appendF32(b []byte, v float32) []byte {
	t := canon.NewFloat32Tensor("", []int64{1}, []float32{v})
	return append(b, t.Data...)
}
