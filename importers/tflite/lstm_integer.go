package tfliteimport

import (
	"fmt"
	"math"
	"strings"

	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// integerLSTMRefusal explains why an integer UNIDIRECTIONAL_SEQUENCE_LSTM
// other than TFLite's 8x8_16 kernel (int8 input and hidden state, int16
// cell state; lstm_int8.go) is not read, describing the quantization the
// file gives it.
func (c *opCtx) integerLSTMRefusal() error {
	b := c.b
	x := c.in(lstmInput)
	var facts []string
	describe := func(what string, i int) {
		if i < 0 {
			return
		}
		t := b.tensor(i)
		s := fmt.Sprintf("%s %s", what, tflitefb.EnumNamesTensorType[t.dtype])
		if t.quant != nil && len(t.quant.scale) == 1 {
			s += fmt.Sprintf(" (scale %s, zero point %d)", scaleText(t.quant.scale[0]), t.quant.zero[0])
		}
		facts = append(facts, s)
	}
	describe("input", x)
	describe("input weights", c.in(lstmInputWeights))
	describe("hidden state", c.in(lstmOutputState))
	describe("cell state", c.in(lstmCellState))
	gates := 0
	for k, t := range c.op.intermediates {
		if k < 4 && t >= 0 && (b.tensor(t).quant == nil || len(b.tensor(t).quant.scale) == 0) {
			gates++
		}
	}
	if gates > 0 {
		facts = append(facts, fmt.Sprintf("%d gate intermediates without scales (the kernel then uses 2^-12, Q3.12)", gates))
	}
	if len(c.op.intermediates) > 4 {
		describe("effective hidden scale", c.op.intermediates[4])
	}
	return c.errf("an %s UNIDIRECTIONAL_SEQUENCE_LSTM is not supported: of TFLite's integer LSTM kernels modelbridge reads the 8x8_16 one "+
		"(int8 input and hidden state, int16 cell state); convert the float model, or quantize it to int8 (the file gives it: %s)",
		tflitefb.EnumNamesTensorType[b.tensor(x).dtype], strings.Join(facts, ", "))
}

// scaleText writes a scale, as a power of two when it is one.
func scaleText(s float32) string {
	if s > 0 {
		if f, e := math.Frexp(float64(s)); f == 0.5 {
			return fmt.Sprintf("2^%d", e-1)
		}
	}
	return fmt.Sprintf("%g", s)
}
