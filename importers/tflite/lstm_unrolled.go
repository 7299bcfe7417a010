package tfliteimport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// unrolledLSTM writes an LSTM with TFLite's cell_clip step by step: TFLite
// clips the cell state after each update, which the canonical LSTM (ONNX's
// clip bounds the gate inputs) cannot say. Each step is
//
//	z = x_t·Wᵀ + b + h·Rᵀ, split into i, f, g, o (TFLite's gate order)
//	c = clip(σ(f + p_f⊙c)⊙c + σ(i + p_i⊙c)⊙act(g), ±cell_clip)
//	h = σ(o + p_o⊙c)⊙act(c)
//
// from zero states, and the outputs are the steps' h stacked on time.
func (c *opCtx) unrolledLSTM(l *lstmWeights, x int, act canon.RNNActivation, clip float32, timeMajor bool) error {
	b := c.b
	xs := b.tensor(x).shape
	batch, steps := xs[0], xs[1]
	timeAxis := int64(1)
	if timeMajor {
		batch, steps, timeAxis = xs[1], xs[0], 0
	}
	if steps > 10000 {
		return c.errf("a clipped LSTM is unrolled step by step; %d steps are too many (at most 10,000)", steps)
	}
	H, name := l.hidden, b.base(c.out(0))
	w, err := l.tensor(name+"/W", lstmInputWeights, "ifco", l.inputs, []int64{4 * H, l.inputs}, "OI")
	if err != nil {
		return err
	}
	r, err := l.tensor(name+"/R", lstmRecurrent, "ifco", H, []int64{4 * H, H}, "OI")
	if err != nil {
		return err
	}
	bias, err := l.tensor(name+"/B", lstmBias, "ifco", 1, []int64{4 * H}, "O")
	if err != nil {
		return err
	}
	var peep [3]string // i, f, o
	if c.in(lstmPeephole) >= 0 {
		for k, g := range "ifo" {
			if peep[k], err = l.tensor(name+"/P"+string(g), lstmPeephole, string(g), 1, []int64{H}, ""); err != nil {
				return err
			}
		}
	}
	xv, err := b.value(x, fileForm)
	if err != nil {
		return err
	}
	activate := func(base, v string) string {
		switch act.Fn {
		case canon.ActTanh:
			return b.node(base, &canon.Unary{Fn: canon.Tanh}, v)
		case canon.ActRelu:
			return b.node(base, &canon.Unary{Fn: canon.Relu}, v)
		}
		return v
	}
	sigmoid := func(base, v string) string { return b.node(base, &canon.Unary{Fn: canon.Sigmoid}, v) }
	mul := func(base, p, q string) string { return b.node(base, &canon.Binary{Fn: canon.Mul}, p, q) }
	add := func(base, p, q string) string { return b.node(base, &canon.Binary{Fn: canon.Add}, p, q) }
	if err := b.take(safeProduct(4, batch, H), "the unrolled LSTM's states"); err != nil {
		return err
	}
	if err := b.take(safeProduct(8192, steps), "the unrolled LSTM's steps"); err != nil {
		return err
	}
	zeros := b.constF32(name+"/zero_state", []int64{batch, H}, make([]float32, batch*H))
	h, cell := zeros, zeros
	var outs []string
	for t := range steps {
		base := fmt.Sprintf("%s/step%d", name, t)
		xt := b.node(base+"/x", &canon.Slice{Starts: []int64{t}, Ends: []int64{t + 1}, Axes: []int64{timeAxis}, Steps: []int64{1}}, xv, "", "", "", "")
		xt = b.node(base+"/x2d", &canon.Reshape{Shape: []int64{batch, l.inputs}}, xt)
		z := add(base+"/z", b.node(base+"/zx", &canon.Linear{Alpha: 1, Beta: 1}, xt, w, bias), b.node(base+"/zh", &canon.Linear{Alpha: 1, Beta: 1}, h, r, ""))
		gates := []string{b.fresh(base + "/i"), b.fresh(base + "/f"), b.fresh(base + "/g"), b.fresh(base + "/o")}
		b.emit(base+"/split", &canon.Split{Axis: 1, Sizes: []int64{H, H, H, H}}, []string{z}, gates...)
		gi, gf, gg, gout := gates[0], gates[1], gates[2], gates[3]
		if peep[0] != "" {
			gi = add(base+"/i_peep", gi, mul(base+"/pi", peep[0], cell))
			gf = add(base+"/f_peep", gf, mul(base+"/pf", peep[1], cell))
		}
		next := add(base+"/c_sum", mul(base+"/fc", sigmoid(base+"/sf", gf), cell), mul(base+"/ig", sigmoid(base+"/si", gi), activate(base+"/ag", gg)))
		cell = b.node(base+"/c", &canon.Clip{Min: -clip, Max: clip}, next, "", "")
		if peep[2] != "" {
			gout = add(base+"/o_peep", gout, mul(base+"/po", peep[2], cell))
		}
		h = mul(base+"/h", sigmoid(base+"/so", gout), activate(base+"/ac", cell))
		shape := []int64{batch, 1, H}
		if timeMajor {
			shape = []int64{1, batch, H}
		}
		outs = append(outs, b.node(base+"/y", &canon.Reshape{Shape: shape}, h))
	}
	y := c.out(0)
	v := b.node(name, &canon.Concat{Axis: timeAxis}, outs...)
	if ys := b.tensor(y).shape; len(ys) != 3 {
		v = b.node(name+"/shape", &canon.Reshape{Shape: append([]int64{}, ys...)}, v)
	}
	b.define(y, v, fileForm)
	return nil
}
