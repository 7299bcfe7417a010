package tfliteexport

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// lstmStepper writes an LSTM direction step by step with elementwise ops
// (FULLY_CONNECTED, SPLIT, LOGISTIC, MUL, ADD), used when the last cell
// state is needed: UNIDIRECTIONAL_SEQUENCE_LSTM keeps it in a variable
// tensor no output can name.
type lstmStepper struct {
	e         *exporter
	n         *canon.Node
	x         int32
	timeAxis  int
	steps     int64
	batch, in int64
	h         int64
	act       tflitefb.BuiltinOperator
}

func (s *lstmStepper) tensor(what string, shape ...int32) (int32, error) {
	return s.e.scratch(s.n.Name+"/"+what, shape, canon.Float32)
}

// run computes one direction, returning every step's hidden state (in
// time order), the last hidden and the last cell state, each (B, H).
func (s *lstmStepper) run(wv, rv, bias []float32, reversed bool) (hs []int32, lastH, lastC int32, err error) {
	e, n, h, b := s.e, s.n, s.h, int32(s.batch)
	w, err := e.constF32(n.Name+"/W", []int32{int32(4 * h), int32(s.in)}, wv)
	if err != nil {
		return nil, 0, 0, err
	}
	r, err := e.constF32(n.Name+"/R", []int32{int32(4 * h), int32(h)}, rv)
	if err != nil {
		return nil, 0, 0, err
	}
	sum := make([]float32, 4*h)
	for j := range sum {
		sum[j] = bias[j] + bias[4*h+int64(j)]
	}
	bt, err := e.constF32(n.Name+"/B", []int32{int32(4 * h)}, sum)
	if err != nil {
		return nil, 0, 0, err
	}
	zero, err := e.constF32(n.Name+"/zero_bias", []int32{int32(4 * h)}, make([]float32, 4*h))
	if err != nil {
		return nil, 0, 0, err
	}
	fc := func(in, wt, bias, out int32) {
		e.emit(tflitefb.BuiltinOperatorFULLY_CONNECTED, []int32{in, wt, bias}, []int32{out}, tflitefb.BuiltinOptionsFullyConnectedOptions, func(fb *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.FullyConnectedOptionsStart(fb)
			return tflitefb.FullyConnectedOptionsEnd(fb)
		})
	}
	ax, err := e.constI32(n.Name+"/gate_axis", []int32{}, []int32{1})
	if err != nil {
		return nil, 0, 0, err
	}
	hs = make([]int32, s.steps)
	var hPrev, cPrev int32 = -1, -1
	for k := int64(0); k < s.steps; k++ {
		t := k
		if reversed {
			t = s.steps - 1 - k
		}
		size := []int32{int32(s.batch), int32(s.batch), int32(s.in)}
		size[s.timeAxis] = 1
		if s.timeAxis == 0 {
			size[1] = b
		} else {
			size[0] = b
		}
		begin := []int32{0, 0, 0}
		begin[s.timeAxis] = int32(t)
		xt3, err := s.tensor("x_step", size...)
		if err != nil {
			return nil, 0, 0, err
		}
		if err := e.slice4(n, s.x, xt3, begin, size); err != nil {
			return nil, 0, 0, err
		}
		xt, err := s.tensor("x_t", b, int32(s.in))
		if err != nil {
			return nil, 0, 0, err
		}
		if err := e.reshapeInto(xt3, xt, []int32{b, int32(s.in)}); err != nil {
			return nil, 0, 0, err
		}
		gates, err := s.tensor("gates", b, int32(4*h))
		if err != nil {
			return nil, 0, 0, err
		}
		if hPrev < 0 {
			fc(xt, w, bt, gates)
		} else {
			gx, err := s.tensor("gates_x", b, int32(4*h))
			if err != nil {
				return nil, 0, 0, err
			}
			gh, err := s.tensor("gates_h", b, int32(4*h))
			if err != nil {
				return nil, 0, 0, err
			}
			fc(xt, w, bt, gx)
			fc(hPrev, r, zero, gh)
			e.binaryOp(tflitefb.BuiltinOperatorADD, gx, gh, gates, 0)
		}
		var parts [4]int32 // i, o, f, c
		for j := range parts {
			if parts[j], err = s.tensor("gate", b, int32(h)); err != nil {
				return nil, 0, 0, err
			}
		}
		e.emit(tflitefb.BuiltinOperatorSPLIT, []int32{ax, gates}, parts[:], tflitefb.BuiltinOptionsSplitOptions, func(fb *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.SplitOptionsStart(fb)
			tflitefb.SplitOptionsAddNumSplits(fb, 4)
			return tflitefb.SplitOptionsEnd(fb)
		})
		var a [4]int32
		for j, code := range []tflitefb.BuiltinOperator{tflitefb.BuiltinOperatorLOGISTIC, tflitefb.BuiltinOperatorLOGISTIC, tflitefb.BuiltinOperatorLOGISTIC, s.act} {
			if a[j], err = s.tensor("gate_act", b, int32(h)); err != nil {
				return nil, 0, 0, err
			}
			e.emit(code, []int32{parts[j]}, []int32{a[j]}, 0, nil)
		}
		c, err := s.tensor("c", b, int32(h))
		if err != nil {
			return nil, 0, 0, err
		}
		if cPrev < 0 {
			e.binaryOp(tflitefb.BuiltinOperatorMUL, a[0], a[3], c, 0)
		} else {
			ig, err := s.tensor("i_g", b, int32(h))
			if err != nil {
				return nil, 0, 0, err
			}
			fcPrev, err := s.tensor("f_c", b, int32(h))
			if err != nil {
				return nil, 0, 0, err
			}
			e.binaryOp(tflitefb.BuiltinOperatorMUL, a[2], cPrev, fcPrev, 0)
			e.binaryOp(tflitefb.BuiltinOperatorMUL, a[0], a[3], ig, 0)
			e.binaryOp(tflitefb.BuiltinOperatorADD, fcPrev, ig, c, 0)
		}
		cAct, err := s.tensor("c_act", b, int32(h))
		if err != nil {
			return nil, 0, 0, err
		}
		e.emit(s.act, []int32{c}, []int32{cAct}, 0, nil)
		ht, err := s.tensor("h", b, int32(h))
		if err != nil {
			return nil, 0, 0, err
		}
		e.binaryOp(tflitefb.BuiltinOperatorMUL, a[1], cAct, ht, 0)
		hs[t] = ht
		hPrev, cPrev = ht, c
	}
	return hs, hPrev, cPrev, nil
}
