package tfliteimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// readFlat returns tensor i's value in file element order, reshaped
// directly from its NCHW form when that keeps the order (no Transpose).
func (c *opCtx) readFlat(i int) (string, error) {
	b := c.b
	if b.heldForm(i) == nchwForm && orderKept(b.tensor(i).shape) {
		return b.value(i, nchwForm)
	}
	return b.value(i, fileForm)
}

func convReshape(c *opCtx) error {
	x, err := c.need(0)
	if err != nil {
		return err
	}
	y := c.out(0)
	shape := c.b.tensor(y).shape
	if c.b.tensor(y).hasRankFal {
		return c.errf("the output's shape is not recorded; modelbridge needs it")
	}
	xs := c.b.tensor(x).shape
	if len(xs) == 4 && c.b.heldForm(x) == nchwForm && !orderKept(xs) && len(shape) == 2 && shape[0] == xs[0] {
		// A flatten of an NCHW value: kept in NCHW order for a
		// FULLY_CONNECTED layer to absorb (flatForm).
		nchw, err := c.b.value(x, nchwForm)
		if err != nil {
			return err
		}
		c.b.flatSrc[y] = x
		c.b.define(y, c.b.node(c.b.tensor(y).name, &canon.Reshape{Shape: append([]int64{}, shape...)}, nchw), flatForm)
		return nil
	}
	xv, err := c.readFlat(x)
	if err != nil {
		return err
	}
	if len(xs) == 4 && c.b.heldForm(x) == nchwForm && len(shape) == 4 && orderKept(shape) {
		// NCHW in, NCHW out with the same element order.
		ns := []int64{shape[0], shape[3], shape[1], shape[2]}
		c.b.define(y, c.b.node(c.b.tensor(y).name, &canon.Reshape{Shape: ns}, xv), nchwForm)
		return nil
	}
	c.b.define(y, c.b.node(c.b.tensor(y).name, &canon.Reshape{Shape: append([]int64{}, shape...)}, xv), fileForm)
	return nil
}

// operandForm picks the form an elementwise op works in: NCHW when its
// output is 4-D and a 4-D activation input is held that way and every
// other input is 4-D or constant, the file's order otherwise.
func (c *opCtx) operandForm(ins []int) form {
	b := c.b
	if len(b.tensor(c.out(0)).shape) != 4 {
		return fileForm
	}
	nchw := false
	for _, i := range ins {
		if b.rank4(i) && b.heldForm(i) == nchwForm && !b.isConst(i) {
			nchw = true
		} else if !b.rank4(i) && !b.isWeight(i) {
			return fileForm
		}
	}
	if nchw {
		return nchwForm
	}
	return fileForm
}

// operand returns input i for an elementwise op working in form f: a
// constant of lower rank is broadcast to 4-D NHWC and permuted once.
func (c *opCtx) operand(i int, f form) (string, error) {
	b := c.b
	if f == fileForm || b.rank4(i) {
		return b.value(i, f)
	}
	t, err := b.weightData(i)
	if err != nil {
		return "", err
	}
	if len(t.Shape) > 4 {
		return "", c.errf("input %s of rank %d does not broadcast to a 4-D output", b.tensorTitle(i), len(t.Shape))
	}
	shape := append(make([]int64, 4-len(t.Shape)), t.Shape...)
	for k := range 4 - len(t.Shape) {
		shape[k] = 1
	}
	t4 := &canon.Tensor{Name: t.Name, DType: t.DType, Shape: shape, Data: t.Data}
	p, err := permuteTensor(t4, nhwcToNCHW)
	if err != nil {
		return "", c.errf("%v", err)
	}
	name := b.addConst(p)
	if _, half := b.dequantOf[i]; half {
		name = b.node(b.tensor(i).name, &canon.Cast{To: canon.Float32}, name)
	}
	return name, nil
}

func convBinary(c *opCtx, fn canon.BinaryFn) error {
	a, err := c.need(0)
	if err != nil {
		return err
	}
	bb, err := c.need(1)
	if err != nil {
		return err
	}
	var act tflitefb.ActivationFunctionType
	switch fn {
	case canon.Add:
		o, err := optionsOf[tflitefb.AddOptions](c, tflitefb.BuiltinOptionsAddOptions)
		if err != nil {
			return err
		}
		act = o.FusedActivationFunction()
	case canon.Sub:
		o, err := optionsOf[tflitefb.SubOptions](c, tflitefb.BuiltinOptionsSubOptions)
		if err != nil {
			return err
		}
		act = o.FusedActivationFunction()
	case canon.Mul:
		o, err := optionsOf[tflitefb.MulOptions](c, tflitefb.BuiltinOptionsMulOptions)
		if err != nil {
			return err
		}
		act = o.FusedActivationFunction()
	case canon.Div:
		o, err := optionsOf[tflitefb.DivOptions](c, tflitefb.BuiltinOptionsDivOptions)
		if err != nil {
			return err
		}
		act = o.FusedActivationFunction()
	}
	if c.b.quantized(a) || c.b.quantized(bb) {
		return c.quantAddSub(a, bb, fn, act)
	}
	f := c.operandForm([]int{a, bb})
	av, err := c.operand(a, f)
	if err != nil {
		return err
	}
	bv, err := c.operand(bb, f)
	if err != nil {
		return err
	}
	y := c.out(0)
	name := c.b.base(y)
	v := c.b.node(name, &canon.Binary{Fn: fn}, av, bv)
	if v, err = c.floatActivation(act, v, name); err != nil {
		return err
	}
	c.b.define(y, v, f)
	return nil
}

// convUnary converts an op of one input that works in any layout.
func convUnary(c *opCtx, op canon.Op) error {
	x, err := c.need(0)
	if err != nil {
		return err
	}
	if c.b.quantized(x) {
		return c.errf("quantized %s is not supported: its integer kernel (a lookup table or fixed-point polynomial in TFLite) has no exact canonical form here", c.op.opcode.name())
	}
	f := c.b.heldForm(x)
	xv, err := c.b.value(x, f)
	if err != nil {
		return err
	}
	y := c.out(0)
	c.b.define(y, c.b.node(c.b.tensor(y).name, op, xv), f)
	return nil
}

func convLeakyRelu(c *opCtx) error {
	o, err := optionsOf[tflitefb.LeakyReluOptions](c, tflitefb.BuiltinOptionsLeakyReluOptions)
	if err != nil {
		return err
	}
	x, err := c.need(0)
	if err != nil {
		return err
	}
	if c.b.quantized(x) {
		return c.quantLeakyRelu(x, o.Alpha())
	}
	return convUnary(c, &canon.LeakyRelu{Alpha: o.Alpha()})
}

func convSoftmax(c *opCtx) error {
	o, err := optionsOf[tflitefb.SoftmaxOptions](c, tflitefb.BuiltinOptionsSoftmaxOptions)
	if err != nil {
		return err
	}
	x, err := c.need(0)
	if err != nil {
		return err
	}
	if c.b.quantized(x) {
		return c.quantSoftmax(x, o.Beta())
	}
	b := c.b
	rank := len(b.tensor(x).shape)
	if rank == 0 {
		return c.errf("input is a scalar")
	}
	f := b.heldForm(x)
	axis := int64(rank - 1)
	if f == nchwForm {
		axis = 1
	}
	xv, err := b.value(x, f)
	if err != nil {
		return err
	}
	y := c.out(0)
	name := b.base(y)
	if beta := o.Beta(); beta != 1 {
		xv = b.node(name+"/beta", &canon.Binary{Fn: canon.Mul}, xv, b.constF32(name+"/beta", []int64{}, []float32{beta}))
	}
	b.define(y, b.node(name, &canon.Softmax{Axis: axis}, xv), f)
	return nil
}

// constInts reads constant integer tensor i.
func (c *opCtx) constInts(i int, what string) ([]int64, error) {
	if i < 0 || !c.b.isConst(i) {
		return nil, c.errf("%s must be a constant", what)
	}
	t, err := c.b.fileTensor(i)
	if err != nil {
		return nil, err
	}
	v, err := t.Int64s()
	if err != nil {
		return nil, c.errf("%s: %v", what, err)
	}
	return v, nil
}

// axisIn maps file axis a of a rank-r tensor to form f.
func axisIn(a, r int, f form) int {
	if f == nchwForm && r == 4 {
		return nchwAxis[a]
	}
	return a
}

func convPad(c *opCtx) error {
	x, err := c.need(0)
	if err != nil {
		return err
	}
	b := c.b
	r := len(b.tensor(x).shape)
	p, err := c.constInts(c.in(1), "paddings")
	if err != nil {
		return err
	}
	if len(p) != 2*r {
		return c.errf("paddings has %d values; a rank-%d input needs %d", len(p), r, 2*r)
	}
	value := float32(0)
	if k := c.in(2); k >= 0 { // PADV2's constant
		t, err := b.fileTensor(k)
		if err != nil {
			return err
		}
		v, err := t.Float64s()
		if err != nil || len(v) != 1 {
			return c.errf("constant_values must be one number")
		}
		value = float32(v[0])
		if b.quantized(x) {
			value = float32(v[0]) // the raw integer, like the data
		}
	} else if q := b.tensor(x).quant; q != nil && b.quantized(x) {
		value = float32(q.zero[0]) // TFLite pads quantized data with its zero point
	}
	if b.quantized(x) {
		if err := c.sameQuant(x, c.out(0)); err != nil {
			return err
		}
	}
	f := b.heldForm(x)
	begin, end := make([]int64, r), make([]int64, r)
	for a := range r {
		if p[2*a] < 0 || p[2*a+1] < 0 {
			return c.errf("paddings %v are negative", p)
		}
		k := axisIn(a, r, f)
		begin[k], end[k] = p[2*a], p[2*a+1]
	}
	xv, err := b.value(x, f)
	if err != nil {
		return err
	}
	mode := canon.PadConstant
	if c.op.opcode.builtin == tflitefb.BuiltinOperatorMIRROR_PAD {
		o, err := optionsOf[tflitefb.MirrorPadOptions](c, tflitefb.BuiltinOptionsMirrorPadOptions)
		if err != nil {
			return err
		}
		if o.Mode() != tflitefb.MirrorPadModeREFLECT {
			return c.errf("MIRROR_PAD mode %s: only REFLECT has a canonical form", tflitefb.EnumNamesMirrorPadMode[o.Mode()])
		}
		mode = canon.PadReflect
	}
	y := c.out(0)
	b.define(y, b.node(b.tensor(y).name, &canon.Pad{Mode: mode, PadsBegin: begin, PadsEnd: end, Value: value}, xv, "", ""), f)
	return nil
}

func convStridedSlice(c *opCtx) error {
	o, err := optionsOf[tflitefb.StridedSliceOptions](c, tflitefb.BuiltinOptionsStridedSliceOptions)
	if err != nil {
		return err
	}
	if o.EllipsisMask() != 0 || o.NewAxisMask() != 0 || o.Offset() {
		return c.errf("ellipsis_mask, new_axis_mask and offset are not supported")
	}
	x, err := c.need(0)
	if err != nil {
		return err
	}
	b := c.b
	xs := b.tensor(x).shape
	r := len(xs)
	begin, err := c.constInts(c.in(1), "begin")
	if err != nil {
		return err
	}
	end, err := c.constInts(c.in(2), "end")
	if err != nil {
		return err
	}
	strides, err := c.constInts(c.in(3), "strides")
	if err != nil {
		return err
	}
	if len(begin) != r || len(end) != r || len(strides) != r {
		return c.errf("begin %v, end %v and strides %v must each have %d values", begin, end, strides, r)
	}
	if b.quantized(x) {
		if err := c.sameQuant(x, c.out(0)); err != nil {
			return err
		}
	}
	f := b.heldForm(x)
	shrink := o.ShrinkAxisMask()
	if shrink != 0 {
		f = fileForm
	}
	starts, ends, axes, steps := make([]int64, r), make([]int64, r), make([]int64, r), make([]int64, r)
	var kept []int64
	for a := range r {
		s, e, st := begin[a], end[a], strides[a]
		if st == 0 {
			return c.errf("stride on axis %d is 0", a)
		}
		if o.BeginMask()&(1<<a) != 0 {
			if st > 0 {
				s = 0
			} else {
				s = xs[a] - 1
			}
		}
		if o.EndMask()&(1<<a) != 0 {
			if st > 0 {
				e = xs[a]
			} else {
				e = -xs[a] - 1 // past the front, after negative-index wrapping
			}
		}
		if shrink&(1<<a) != 0 {
			// One element at begin.
			if s < 0 {
				s += xs[a]
			}
			e, st = s+1, 1
		} else {
			kept = append(kept, -1)
		}
		k := axisIn(a, r, f)
		starts[k], ends[k], axes[k], steps[k] = s, e, int64(k), st
	}
	xv, err := b.value(x, f)
	if err != nil {
		return err
	}
	y := c.out(0)
	name := b.base(y)
	v := b.node(name, &canon.Slice{Starts: starts, Ends: ends, Axes: axes, Steps: steps}, xv, "", "", "", "")
	if shrink != 0 {
		v = b.node(name+"/shrink", &canon.Reshape{Shape: append([]int64{}, b.tensor(y).shape...)}, v)
	}
	b.define(y, v, f)
	return nil
}

func convConcatenation(c *opCtx) error {
	o, err := optionsOf[tflitefb.ConcatenationOptions](c, tflitefb.BuiltinOptionsConcatenationOptions)
	if err != nil {
		return err
	}
	b := c.b
	y := c.out(0)
	r := len(b.tensor(y).shape)
	axis := int(o.Axis())
	if axis < 0 {
		axis += r
	}
	if axis < 0 || axis >= r {
		return c.errf("axis %d is out of range for rank %d", o.Axis(), r)
	}
	for _, i := range c.op.inputs {
		if i < 0 {
			return c.errf("an input is absent")
		}
		if b.quantized(i) {
			if err := c.sameQuant(i, y); err != nil {
				return err
			}
		}
	}
	f := c.operandForm(c.op.inputs)
	var ins []string
	for _, i := range c.op.inputs {
		v, err := c.operand(i, f)
		if err != nil {
			return err
		}
		ins = append(ins, v)
	}
	name := b.base(y)
	v := b.node(name, &canon.Concat{Axis: int64(axisIn(axis, r, f))}, ins...)
	if b.quantized(y) {
		if o.FusedActivationFunction() != tflitefb.ActivationFunctionTypeNONE {
			return c.errf("a fused activation on a quantized CONCATENATION is not supported")
		}
	} else if v, err = c.floatActivation(o.FusedActivationFunction(), v, name); err != nil {
		return err
	}
	b.define(y, v, f)
	return nil
}

func convMean(c *opCtx) error { return convReduce(c, canon.ReduceMean) }

// convReduce reads MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_PROD.
func convReduce(c *opCtx, fn canon.ReduceFn) error {
	o, err := optionsOf[tflitefb.ReducerOptions](c, tflitefb.BuiltinOptionsReducerOptions)
	if err != nil {
		return err
	}
	x, err := c.need(0)
	if err != nil {
		return err
	}
	b := c.b
	if b.quantized(x) {
		return c.errf("quantized %s is not supported: TFLite requantizes the result with its own fixed-point rounding, not written here", c.op.opcode.name())
	}
	r := len(b.tensor(x).shape)
	axes, err := c.constInts(c.in(1), "axes")
	if err != nil {
		return err
	}
	f := b.heldForm(x)
	if !o.KeepDims() {
		f = fileForm
	}
	var ca []int64
	for _, a := range axes {
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || a >= int64(r) {
			return c.errf("axis %d is out of range for rank %d", a, r)
		}
		ca = append(ca, int64(axisIn(int(a), r, f)))
	}
	xv, err := b.value(x, f)
	if err != nil {
		return err
	}
	y := c.out(0)
	b.define(y, b.node(b.tensor(y).name, &canon.Reduce{Fn: fn, Axes: ca, KeepDims: o.KeepDims()}, xv, ""), f)
	return nil
}

func convFullyConnected(c *opCtx) error {
	o, err := optionsOf[tflitefb.FullyConnectedOptions](c, tflitefb.BuiltinOptionsFullyConnectedOptions)
	if err != nil {
		return err
	}
	if o.WeightsFormat() != tflitefb.FullyConnectedOptionsWeightsFormatDEFAULT {
		return c.errf("weights format %s is not supported", tflitefb.EnumNamesFullyConnectedOptionsWeightsFormat[o.WeightsFormat()])
	}
	b := c.b
	x, err := c.need(0)
	if err != nil {
		return err
	}
	w, err := c.need(1)
	if err != nil {
		return err
	}
	ws := b.tensor(w).shape
	if len(ws) != 2 || !b.isWeight(w) {
		return c.errf("weights %s must be a constant (out, in) matrix", b.tensorTitle(w))
	}
	xs := b.tensor(x).shape
	n := canon.NumElements(xs)
	if ws[1] == 0 || n%ws[1] != 0 {
		return c.errf("input %v does not split into rows of %d features", xs, ws[1])
	}
	y := c.out(0)
	name := b.base(y)
	var colPerm []int64
	var xv string
	if src, ok := b.flatSrc[x]; ok && len(xs) == 2 && xs[1] == ws[1] {
		// The input is an NCHW value flattened: the weight columns are
		// reordered from (h, w, c) to (c, h, w) instead.
		s4 := b.tensor(src).shape
		colPerm = []int64{ws[0], s4[1], s4[2], s4[3]}
		xv = b.vals[x][0].name
	} else if xv, err = c.readFlat(x); err != nil {
		return err
	}
	if colPerm == nil && (len(xs) != 2 || xs[1] != ws[1] || b.heldForm(x) == nchwForm) {
		xv = b.node(name+"/rows", &canon.Reshape{Shape: []int64{n / ws[1], ws[1]}}, xv)
	}
	if b.quantized(x) {
		return c.quantFullyConnected(xv, x, w, c.in(2), o.FusedActivationFunction(), o.KeepNumDims(), colPerm)
	}
	var wv string
	if colPerm != nil {
		wv, err = b.columnsNCHW(w, colPerm)
	} else {
		wv, err = b.weight(w, nil, "OI")
	}
	if err != nil {
		return err
	}
	bias := ""
	if k := c.in(2); k >= 0 {
		if bias, err = b.weight(k, nil, "O"); err != nil {
			return err
		}
	}
	v := b.node(name, &canon.Linear{Alpha: 1, Beta: 1}, xv, wv, bias)
	if v, err = c.floatActivation(o.FusedActivationFunction(), v, name); err != nil {
		return err
	}
	return c.finishFC(v, y, name)
}

// finishFC reshapes a FULLY_CONNECTED result to the output's recorded
// shape when it is not 2-D (keep_num_dims).
func (c *opCtx) finishFC(v string, y int, name string) error {
	ys := c.b.tensor(y).shape
	if len(ys) != 2 {
		v = c.b.node(name+"/shape", &canon.Reshape{Shape: append([]int64{}, ys...)}, v)
	}
	c.b.define(y, v, fileForm)
	return nil
}
