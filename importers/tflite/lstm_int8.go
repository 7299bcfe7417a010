package tfliteimport

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// integerLSTM writes TFLite's 8x8_16 integer UNIDIRECTIONAL_SEQUENCE_LSTM
// (lstm_eval.cc, EvalInteger8x8_16, without peepholes, projection, layer
// norm or CIFG) step by step in exact int64 canonical ops. Each step:
//
//	gate = sat16(sat16(MBQM((x-x_zp)·Wᵀ + b, Mx)) + MBQM((h-h_zp)·Rᵀ, Mh))
//	i, f, o = sigmoid16(gate) and g = tanh16(gate), Q3.12 in, Q0.15 out
//	c = clip(sat16(rdbp(c·f, 15) + rdbp(i·g, 30+cell_exp)), ±cell_clip)
//	h = clamp(MBQM(o·tanh16(c), M_hidden), int8)
//
// where MBQM is MultiplyByQuantizedMultiplier, the gate scales are the
// kernel's 2^-12 (Q3.12) and the cell state's scale is 2^cell_exp. The
// int16 sigmoid and tanh are gemmlowp's (fixedpoint16.go), applied as
// tables over the 65,536 int16 inputs.
func (c *opCtx) integerLSTM(o *tflitefb.UnidirectionalSequenceLSTMOptions) error {
	b := c.b
	x := c.in(lstmInput)
	y := c.out(0)
	refuse := func(why string, args ...any) error {
		return c.errf("an integer UNIDIRECTIONAL_SEQUENCE_LSTM is read only in TFLite's 8x8_16 form without peepholes, projection, layer norm or CIFG: %s", fmt.Sprintf(why, args...))
	}
	for _, k := range []int{lstmPeephole, lstmPeephole + 1, lstmPeephole + 2, lstmProjection, lstmProjBias} {
		if c.in(k) >= 0 {
			return refuse("input %d is present", k)
		}
	}
	for k := lstmLayerNormFrom; k < len(c.op.inputs); k++ {
		if c.in(k) >= 0 {
			return refuse("layer norm input %d is present", k)
		}
	}
	if o.FusedActivationFunction() != tflitefb.ActivationFunctionTypeTANH {
		return refuse("cell activation %s (the kernel's is tanh)", tflitefb.EnumNamesActivationFunctionType[o.FusedActivationFunction()])
	}
	hs, cs := c.in(lstmOutputState), c.in(lstmCellState)
	if hs < 0 || cs < 0 || b.isConst(hs) || b.isConst(cs) {
		return refuse("the hidden and cell states must be variable tensors (zero initial states)")
	}
	typed := func(i int, dt tflitefb.TensorType, what string) (float32, int64, error) {
		if i < 0 {
			return 0, 0, refuse("%s is missing", what)
		}
		if b.tensor(i).dtype != dt {
			return 0, 0, refuse("%s %s is %s, not %s", what, b.tensorTitle(i), tflitefb.EnumNamesTensorType[b.tensor(i).dtype], tflitefb.EnumNamesTensorType[dt])
		}
		return c.quantOf(i)
	}
	xScale, xZP, err := typed(x, tflitefb.TensorTypeINT8, "the input")
	if err != nil {
		return err
	}
	hScale, hZP, err := typed(hs, tflitefb.TensorTypeINT8, "the hidden state")
	if err != nil {
		return err
	}
	cScale, cZP, err := typed(cs, tflitefb.TensorTypeINT16, "the cell state")
	if err != nil {
		return err
	}
	frac, cellExp := math.Frexp(float64(cScale))
	cellExp--
	if frac != 0.5 || cZP != 0 || cellExp > -1 || cellExp < -15 {
		return refuse("the cell state's scale %g (zero point %d) is not a power of two 2^-1..2^-15 with zero point 0", cScale, cZP)
	}
	if len(c.op.intermediates) < 5 || c.op.intermediates[4] < 0 {
		return refuse("the effective hidden scale intermediate (intermediate 4) is missing")
	}
	effScale, effZP, err := c.quantOf(c.op.intermediates[4])
	if err != nil {
		return err
	}
	yScale, yZP, err := typed(y, tflitefb.TensorTypeINT8, "the output")
	if err != nil {
		return err
	}
	if effZP != 0 || hZP != 0 || yZP != hZP || yScale != hScale || effScale != hScale {
		return refuse("the hidden state, its intermediate and the output must share one scale with zero point 0 (they have %g/%d, %g/%d, %g/%d)", hScale, hZP, effScale, effZP, yScale, yZP)
	}
	xs := b.tensor(x).shape
	if len(xs) != 3 {
		return c.errf("input has shape %v; want rank 3", xs)
	}
	batch, steps, timeAxis := xs[0], xs[1], int64(1)
	if o.TimeMajor() {
		batch, steps, timeAxis = xs[1], xs[0], 0
	}
	if steps > 10000 {
		return c.errf("an integer LSTM is unrolled step by step; %d steps are too many (at most 10,000)", steps)
	}
	// Weights: per-tensor symmetric int8 rows of each gate (i, f, c, o),
	// stacked and transposed to (inputs, 4·cells) for one product.
	stack := func(from int, what string) (*canon.Tensor, []float32, error) {
		var data []byte
		var scales []float32
		var rows, cols int64
		for g := range 4 {
			i := c.in(from + g)
			s, zp, err := typed(i, tflitefb.TensorTypeINT8, what)
			if err != nil {
				return nil, nil, err
			}
			if zp != 0 {
				return nil, nil, refuse("%s %s has zero point %d; the kernel's weights are symmetric", what, b.tensorTitle(i), zp)
			}
			t, err := b.weightData(i)
			if err != nil {
				return nil, nil, err
			}
			if len(t.Shape) != 2 || (g > 0 && (t.Shape[0] != rows || t.Shape[1] != cols)) {
				return nil, nil, c.errf("%s %s has shape %v", what, b.tensorTitle(i), t.Shape)
			}
			rows, cols = t.Shape[0], t.Shape[1]
			data = append(data, t.Data...)
			scales = append(scales, s)
		}
		t, err := permuteTensor(&canon.Tensor{DType: canon.Int8, Shape: []int64{4 * rows, cols}, Data: data}, []int64{1, 0})
		if err != nil {
			return nil, nil, c.errf("%v", err)
		}
		return t, scales, nil
	}
	wT, wScales, err := stack(lstmInputWeights, "input weights")
	if err != nil {
		return err
	}
	rT, rScales, err := stack(lstmRecurrent, "recurrent weights")
	if err != nil {
		return err
	}
	H := wT.Shape[1] / 4
	inputs := wT.Shape[0]
	if rT.Shape[0] != H || (xs[2] != inputs) {
		return c.errf("weights (%v, %v) do not fit %d inputs and %d cells", wT.Shape, rT.Shape, xs[2], H)
	}
	var bias []int64
	for g := range 4 {
		i := c.in(lstmBias + g)
		if i < 0 || b.tensor(i).dtype != tflitefb.TensorTypeINT32 {
			return refuse("gate bias %d must be int32", g)
		}
		t, err := b.weightData(i)
		if err != nil {
			return err
		}
		v, err := t.Int64s()
		if err != nil || int64(len(v)) != H {
			return c.errf("gate bias %s has %d values for %d cells", b.tensorTitle(i), len(v), H)
		}
		bias = append(bias, v...)
	}
	// The kernel's effective scales, in float32 as lstm.cc computes them.
	const gateScale = float32(1.0 / 4096) // Q3.12
	var mx, mh []float64
	for g := range 4 {
		for range H {
			mx = append(mx, float64(wScales[g]*xScale/gateScale))
			mh = append(mh, float64(rScales[g]*hScale/gateScale))
		}
	}
	hiddenMul := makeFixedMul([]float64{float64(float32(math.Pow(2, -15) / float64(effScale) * math.Pow(2, -15)))})
	var cellClip int64
	if clip := o.CellClip(); clip > 0 {
		cellClip = int64(min(max(clip/cScale, -32768), 32767))
	}
	if err := b.take(safeProduct(8192, steps), "the unrolled LSTM's steps"); err != nil {
		return err
	}
	name := b.base(y)
	xv, err := b.value(x, fileForm)
	if err != nil {
		return err
	}
	w := b.addConst(&canon.Tensor{Name: name + "/W", DType: canon.Int8, Shape: wT.Shape, Layout: "IO", Data: wT.Data})
	r := b.addConst(&canon.Tensor{Name: name + "/R", DType: canon.Int8, Shape: rT.Shape, Layout: "IO", Data: rT.Data})
	i8 := func(what string, v int64) string {
		return b.addConst(&canon.Tensor{Name: name + "/" + what, DType: canon.Int8, Shape: []int64{}, Data: []byte{byte(int8(v))}})
	}
	xzp, hzp, zero8 := i8("x_zp", xZP), i8("h_zp", hZP), i8("w_zp", 0)
	i64 := func(what string, v int64) string { return b.constI64(name+"/"+what, []int64{}, []int64{v}) }
	biasV := b.constI64(name+"/B", []int64{4 * H}, bias)
	sigT, err := c.int16Table("sigmoid_q3_12", func(v int16) int16 { return logistic16(v, 3) })
	if err != nil {
		return err
	}
	tanhT, err := c.int16Table("tanh_q3_12", func(v int16) int16 { return tanh16(v, 3) })
	if err != nil {
		return err
	}
	// The cell's tanh reads the cell state with 15+cell_exp integer bits.
	cellBits := 15 + cellExp
	cellTanhT, err := c.int16Table(fmt.Sprintf("tanh_q%d_%d", cellBits, 15-cellBits), func(v int16) int16 { return tanh16(v, cellBits) })
	if err != nil {
		return err
	}
	offset := i64("int16_offset", 32768)
	lookup := func(base, table, v string) string {
		got := b.node(base, &canon.Gather{Axis: 0}, table, b.node(base+"_index", &canon.Binary{Fn: canon.Add}, v, offset))
		return b.node(base+"_i64", &canon.Cast{To: canon.Int64}, got)
	}
	clamp := func(base, v string, lo, hi int64) string {
		v = b.node(base+"_lo", &canon.Variadic{Fn: canon.VarMax}, v, i64(base+"_min", lo))
		return b.node(base+"_hi", &canon.Variadic{Fn: canon.VarMin}, v, i64(base+"_max", hi))
	}
	h := b.addConst(&canon.Tensor{Name: name + "/zero_hidden", DType: canon.Int8, Shape: []int64{batch, H}, Data: make([]byte, batch*H)})
	cell := b.constI64(name+"/zero_cell", []int64{batch, H}, make([]int64, batch*H))
	gateMx, gateMh := makeFixedMul(mx), makeFixedMul(mh)
	var outs []string
	for t := range steps {
		base := fmt.Sprintf("%s/step%d", name, t)
		gr := rescaler{b: b, base: base, cs: []int64{4 * H}}
		xt := b.node(base+"/x", &canon.Slice{Starts: []int64{t}, Ends: []int64{t + 1}, Axes: []int64{timeAxis}, Steps: []int64{1}}, xv, "", "", "", "")
		xt = b.node(base+"/x2d", &canon.Reshape{Shape: []int64{batch, inputs}}, xt)
		ax := gr.toInt64(b.node(base+"/wx", &canon.MatMulInteger{}, xt, w, xzp, zero8), 0)
		ax = gr.bin("wx_bias", canon.Add, ax, biasV)
		gate := clamp(base+"/gate_x", gr.mul32(ax, gateMx), math.MinInt16, math.MaxInt16)
		ah := gr.toInt64(b.node(base+"/rh", &canon.MatMulInteger{}, h, r, hzp, zero8), 0)
		gate = clamp(base+"/gate", gr.bin("gate_sum", canon.Add, gate, gr.mul32(ah, gateMh)), math.MinInt16, math.MaxInt16)
		parts := []string{b.fresh(base + "/i"), b.fresh(base + "/f"), b.fresh(base + "/g"), b.fresh(base + "/o")}
		b.emit(base+"/split", &canon.Split{Axis: 1, Sizes: []int64{H, H, H, H}}, []string{gate}, parts...)
		gi, gf := lookup(base+"/si", sigT, parts[0]), lookup(base+"/sf", sigT, parts[1])
		gg, gout := lookup(base+"/tg", tanhT, parts[2]), lookup(base+"/so", sigT, parts[3])
		cr := rescaler{b: b, base: base + "/cell", cs: []int64{}}
		kept := cr.roundingDivideByPOT(cr.bin("fc", canon.Mul, cell, gf), []int{15})
		added := cr.roundingDivideByPOT(cr.bin("ig", canon.Mul, gi, gg), []int{30 + cellExp})
		cell = clamp(base+"/c", cr.bin("sum", canon.Add, kept, added), math.MinInt16, math.MaxInt16)
		if cellClip > 0 {
			cell = clamp(base+"/c_clip", cell, -cellClip, cellClip)
		}
		hr := rescaler{b: b, base: base + "/hidden", cs: []int64{}}
		hv := hr.mul32(hr.bin("oc", canon.Mul, gout, lookup(base+"/tc", cellTanhT, cell)), hiddenMul)
		h = hr.clampCast(hv, 0, -128, 127, canon.Int8)
		shape := []int64{batch, 1, H}
		if o.TimeMajor() {
			shape = []int64{1, batch, H}
		}
		outs = append(outs, b.node(base+"/y", &canon.Reshape{Shape: shape}, h))
	}
	v := b.node(name, &canon.Concat{Axis: timeAxis}, outs...)
	if ys := b.tensor(y).shape; len(ys) != 3 {
		v = b.node(name+"/shape", &canon.Reshape{Shape: append([]int64{}, ys...)}, v)
	}
	b.define(y, v, fileForm)
	return nil
}

// int16Table is a function of the 65,536 int16 values as an int16
// constant indexed by value+32768, made once per file.
func (c *opCtx) int16Table(name string, f func(int16) int16) (string, error) {
	b := c.b
	key := "int16 table " + name
	if t, ok := b.weights[key]; ok {
		return t, nil
	}
	if err := b.take(2*65536, "the "+name+" table"); err != nil {
		return "", err
	}
	data := make([]byte, 2*65536)
	for v := range 65536 {
		y := uint16(f(int16(v - 32768)))
		data[2*v], data[2*v+1] = byte(y), byte(y>>8)
	}
	t := b.addConst(&canon.Tensor{Name: name, DType: canon.Int16, Shape: []int64{65536}, Data: data})
	b.weights[key] = t
	return t, nil
}
