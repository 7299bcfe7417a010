package tfliteimport

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// quantized reports whether tensor i holds quantized integers.
func (b *builder) quantized(i int) bool {
	t := b.tensor(i)
	switch t.dtype {
	case tflitefb.TensorTypeINT8, tflitefb.TensorTypeUINT8, tflitefb.TensorTypeINT16:
		return t.quant != nil
	}
	return false
}

// quantOf returns tensor i's per-tensor scale and zero point.
func (c *opCtx) quantOf(i int) (float32, int64, error) {
	q := c.b.tensor(i).quant
	if q == nil || len(q.scale) == 0 {
		return 0, 0, c.errf("%s has no quantization parameters", c.b.tensorTitle(i))
	}
	if len(q.scale) != 1 {
		return 0, 0, c.errf("%s is quantized per axis; this op needs one scale", c.b.tensorTitle(i))
	}
	return q.scale[0], q.zero[0], nil
}

// sameQuant checks that an op that only moves data keeps the quantization.
func (c *opCtx) sameQuant(x, y int) error {
	qx, qy := c.b.tensor(x).quant, c.b.tensor(y).quant
	if qx == nil || qy == nil || fmt.Sprint(qx.scale, qx.zero) != fmt.Sprint(qy.scale, qy.zero) || c.b.tensor(x).dtype != c.b.tensor(y).dtype {
		return c.errf("input %s and output %s are quantized differently; TFLite would requantize, which this op does not express", c.b.tensorTitle(x), c.b.tensorTitle(y))
	}
	return nil
}

// outType is the canonical type and range of quantized tensor i.
func (c *opCtx) outType(i int) (canon.DType, int64, int64, error) {
	dt, err := dtypeOf(c.b.tensor(i).dtype)
	if err != nil {
		return 0, 0, 0, c.errf("%s: %v", c.b.tensorTitle(i), err)
	}
	if !canon.QuantizedDType(dt) {
		return 0, 0, 0, c.errf("%s is %s, not a quantized type", c.b.tensorTitle(i), dt)
	}
	lo, hi := canon.QuantRange(dt)
	return dt, lo, hi, nil
}

// actRange is TFLite's CalculateActivationRangeQuantized for output y.
func (c *opCtx) actRange(y int, act tflitefb.ActivationFunctionType) (int64, int64, error) {
	_, lo, hi, err := c.outType(y)
	if err != nil {
		return 0, 0, err
	}
	scale, zp, err := c.quantOf(y)
	if err != nil {
		return 0, 0, err
	}
	quant := func(f float32) int64 { return zp + int64(math.Round(float64(f/scale))) }
	switch act {
	case tflitefb.ActivationFunctionTypeNONE:
	case tflitefb.ActivationFunctionTypeRELU:
		lo = max(lo, quant(0))
	case tflitefb.ActivationFunctionTypeRELU6:
		lo, hi = max(lo, quant(0)), min(hi, quant(6))
	case tflitefb.ActivationFunctionTypeRELU_N1_TO_1:
		lo, hi = max(lo, quant(-1)), min(hi, quant(1))
	default:
		return 0, 0, c.errf("fused activation %s on a quantized output is not supported", tflitefb.EnumNamesActivationFunctionType[act])
	}
	return lo, hi, nil
}

// convMultipliers are TFLite's per-channel output multipliers
// input_scale·filter_scale[c]/output_scale (PopulateConvolution-
// QuantizationParams, in double from the float32 scales).
func (c *opCtx) convMultipliers(x, w, y int, channels int64) (fixedMul, error) {
	xs, _, err := c.quantOf(x)
	if err != nil {
		return fixedMul{}, err
	}
	ys, _, err := c.quantOf(y)
	if err != nil {
		return fixedMul{}, err
	}
	src := w
	if s, ok := c.b.dequantOf[w]; ok {
		src = s
	}
	q := c.b.tensor(src).quant
	if q == nil || (len(q.scale) != 1 && int64(len(q.scale)) != channels) {
		return fixedMul{}, c.errf("filter %s needs one scale or one per output channel (%d)", c.b.tensorTitle(w), channels)
	}
	for _, z := range q.zero {
		if z != 0 {
			return fixedMul{}, c.errf("filter %s has a nonzero zero point; TFLite's integer convolutions need symmetric filters", c.b.tensorTitle(w))
		}
	}
	if err := c.b.take(channels*8*4, "the per-channel multipliers"); err != nil {
		return fixedMul{}, err
	}
	ms := make([]float64, channels)
	for k := range ms {
		s := q.scale[0]
		if len(q.scale) > 1 {
			s = q.scale[k]
		}
		ms[k] = float64(xs) * float64(s) / float64(ys)
	}
	return makeFixedMul(ms), nil
}

// intConvKind checks the integer types of a quantized convolution: int8
// data with int32 bias, or int16 data with int64 (or int32) bias, int8
// filters.
func (c *opCtx) intConvKind(x, w, bias int) (wide bool, err error) {
	b := c.b
	switch b.tensor(x).dtype {
	case tflitefb.TensorTypeINT8:
	case tflitefb.TensorTypeINT16:
		wide = true
		if _, zp, err := c.quantOf(x); err != nil || zp != 0 {
			return false, c.errf("16-bit input %s must have zero point 0", b.tensorTitle(x))
		}
	default:
		return false, c.errf("quantized input type %s is not supported (int8 and int16 are; uint8 is TFLite's legacy scheme)", tflitefb.EnumNamesTensorType[b.tensor(x).dtype])
	}
	if b.tensor(w).dtype != tflitefb.TensorTypeINT8 {
		return false, c.errf("filter %s is %s; int8 filters are supported", b.tensorTitle(w), tflitefb.EnumNamesTensorType[b.tensor(w).dtype])
	}
	if bias >= 0 {
		if d := b.tensor(bias).dtype; d != tflitefb.TensorTypeINT32 && d != tflitefb.TensorTypeINT64 {
			return false, c.errf("bias %s is %s; int32 or int64 is needed", b.tensorTitle(bias), tflitefb.EnumNamesTensorType[d])
		}
	}
	return wide, nil
}

// biasConst is a constant integer bias as int64, shaped for channels
// along axis of a rank-r value.
func (c *opCtx) biasConst(bias int, channels int64, r, axis int, base string) (string, error) {
	t, err := c.b.fileTensor(bias)
	if err != nil {
		return "", err
	}
	v, err := t.Int64s()
	if err != nil || int64(len(v)) != channels {
		return "", c.errf("bias %s must hold %d integers", c.b.tensorTitle(bias), channels)
	}
	return c.b.constI64(base+"/bias", chanShape(len(v), r, axis), v), nil
}

// splitBytes writes int16 value x (zero point 0) as hi·256 + lo with lo
// in uint8 and hi in int8, so that 8-bit integer convolutions give the
// exact 16-bit sums: each partial sum stays within int32 for up to 65,535
// filter taps.
func (b *builder) splitBytes(base, x string) (hi, lo string) {
	x32 := b.node(base+"/i32", &canon.Cast{To: canon.Int32}, x)
	k256 := b.addConst(&canon.Tensor{Name: base + "/256", DType: canon.Int32, Shape: []int64{}, Data: []byte{0, 1, 0, 0}})
	lo32 := b.node(base+"/lo", &canon.Mod{}, x32, k256)
	hi32 := b.node(base+"/hi", &canon.Binary{Fn: canon.Div}, b.node(base+"/hi_sub", &canon.Binary{Fn: canon.Sub}, x32, lo32), k256)
	return b.node(base+"/hi8", &canon.Cast{To: canon.Int8}, hi32), b.node(base+"/lo8", &canon.Cast{To: canon.Uint8}, lo32)
}

// maxWideTaps bounds the taps of a 16-bit convolution written as two
// 8-bit ones: 255·128·taps must stay below 2^31.
const maxWideTaps = 65535

// intConvSum is Σ (x - x_zp)·w over a window as an int64 value: one
// ConvInteger for int8 data, two (high and low bytes) for int16.
func (c *opCtx) intConvSum(base, x string, xzp int64, xdt canon.DType, w string, op *canon.ConvInteger, taps int64) (string, error) {
	b := c.b
	if xdt != canon.Int16 {
		zp := b.addConst(&canon.Tensor{Name: base + "/x_zp", DType: canon.Int8, Shape: []int64{}, Data: []byte{byte(int8(xzp))}})
		acc := b.node(base+"/acc", op, x, w, zp, "")
		return b.node(base+"/acc64", &canon.Cast{To: canon.Int64}, acc), nil
	}
	if taps > maxWideTaps {
		return "", c.errf("a 16-bit convolution of %d taps is not supported (at most %d: the exact sum is built from 8-bit convolutions with int32 sums)", taps, maxWideTaps)
	}
	hi, lo := b.splitBytes(base, x)
	return c.wideSum(base, hi, lo, w, op), nil
}

// wideSum is 256·conv(hi) + conv(lo) in int64, the exact sum of a 16-bit
// input split into bytes.
func (c *opCtx) wideSum(base, hi, lo, w string, op *canon.ConvInteger) string {
	b := c.b
	accHi := b.node(base+"/acc_hi", &canon.Cast{To: canon.Int64}, b.node(base+"/conv_hi", op, hi, w, "", ""))
	accLo := b.node(base+"/acc_lo", &canon.Cast{To: canon.Int64}, b.node(base+"/conv_lo", op, lo, w, "", ""))
	k256 := b.constI64(base+"/256", []int64{}, []int64{256})
	return b.node(base+"/acc", &canon.Binary{Fn: canon.Add}, b.node(base+"/acc_hi256", &canon.Binary{Fn: canon.Mul}, accHi, k256), accLo)
}

// requantizeConv adds the bias, rescales per channel (axis 1 of NCHW),
// adds the output zero point, clamps and casts: the tail of TFLite's
// ConvPerChannel and TransposeConv kernels.
func (c *opCtx) requantizeConv(base, acc string, bias int, x, w, y int, channels int64, wide bool, act tflitefb.ActivationFunctionType) (string, error) {
	b := c.b
	r := rescaler{b: b, base: base, cs: chanShape(int(channels), 4, 1)}
	if bias >= 0 {
		bv, err := c.biasConst(bias, channels, 4, 1, base)
		if err != nil {
			return "", err
		}
		acc = r.bin("bias", canon.Add, acc, bv)
	}
	fm, err := c.convMultipliers(x, w, y, channels)
	if err != nil {
		return "", err
	}
	if len(fm.mult) > 1 && allSame(fm) {
		fm = fixedMul{mult: fm.mult[:1], shift: fm.shift[:1]}
	}
	var scaled string
	if wide {
		scaled = r.mul64(acc, fm)
	} else {
		scaled = r.mul32(acc, fm)
	}
	lo, hi, err := c.actRange(y, act)
	if err != nil {
		return "", err
	}
	dt, _, _, err := c.outType(y)
	if err != nil {
		return "", err
	}
	_, yzp, err := c.quantOf(y)
	if err != nil {
		return "", err
	}
	if wide && yzp != 0 {
		return "", c.errf("16-bit output %s must have zero point 0", b.tensorTitle(y))
	}
	return r.clampCast(scaled, yzp, lo, hi, dt), nil
}

func allSame(f fixedMul) bool {
	for k := range f.mult {
		if f.mult[k] != f.mult[0] || f.shift[k] != f.shift[0] {
			return false
		}
	}
	return true
}

// quantConv is CONV_2D / DEPTHWISE_CONV_2D on int8 or int16 data.
func (c *opCtx) quantConv(g *convGeometry, act tflitefb.ActivationFunctionType) error {
	b := c.b
	wide, err := c.intConvKind(g.x, g.w, g.bias)
	if err != nil {
		return err
	}
	_, xzp, err := c.quantOf(g.x)
	if err != nil {
		return err
	}
	xdt, _, _, err := c.outType(g.x)
	if err != nil {
		return err
	}
	x, err := b.value(g.x, nchwForm)
	if err != nil {
		return err
	}
	w, err := b.weight(g.w, g.perm, "OIHW")
	if err != nil {
		return err
	}
	name := b.base(g.y)
	op := &canon.ConvInteger{Strides: g.win.strides, Dilations: g.win.dilations, PadsBegin: g.win.padsBegin, PadsEnd: g.win.padsEnd, Group: g.group}
	taps := g.ws[1] * g.ws[2] * (g.xs[3] / g.group)
	acc, err := c.intConvSum(name, x, xzp, xdt, w, op, taps)
	if err != nil {
		return err
	}
	out, err := c.requantizeConv(name, acc, g.bias, g.x, g.w, g.y, g.ys[3], wide, act)
	if err != nil {
		return err
	}
	b.define(g.y, out, nchwForm)
	return nil
}

// quantTransposeConv is TRANSPOSE_CONV on int8 or int16 data, written as
// the equivalent forward convolution: the input with stride-1 zeros (the
// zero point) inserted between pixels, padded by k-1-pad, convolved with
// the spatially flipped filter.
func (c *opCtx) quantTransposeConv(g *transposeConvGeometry, act tflitefb.ActivationFunctionType) error {
	b := c.b
	wide, err := c.intConvKind(g.x, g.w, g.bias)
	if err != nil {
		return err
	}
	_, xzp, err := c.quantOf(g.x)
	if err != nil {
		return err
	}
	xdt, _, _, err := c.outType(g.x)
	if err != nil {
		return err
	}
	x, err := b.value(g.x, nchwForm)
	if err != nil {
		return err
	}
	name := b.base(g.y)
	wt, err := b.weightData(g.w)
	if err != nil {
		return err
	}
	flipped, err := flipOHWIToOIHW(wt)
	if err != nil {
		return c.errf("filter: %v", err)
	}
	w := b.addConst(flipped)
	// 16-bit data is split into bytes first, so that the spreading and
	// padding below move 8-bit values (runtimes pad those everywhere).
	op := &canon.ConvInteger{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}, Group: 1}
	var acc string
	if xdt == canon.Int16 {
		if taps := g.ws[1] * g.ws[2] * g.ws[3]; taps > maxWideTaps {
			return c.errf("a 16-bit transposed convolution of %d taps is not supported (at most %d)", taps, maxWideTaps)
		}
		hi, lo := b.splitBytes(name, x)
		acc = c.wideSum(name, c.spread(g, name+"/hi", hi, 0), c.spread(g, name+"/lo", lo, 0), w, op)
	} else {
		if acc, err = c.intConvSum(name, c.spread(g, name, x, xzp), xzp, xdt, w, op, g.ws[1]*g.ws[2]*g.ws[3]); err != nil {
			return err
		}
	}
	out, err := c.requantizeConv(name, acc, g.bias, g.x, g.w, g.y, g.ys[3], wide, act)
	if err != nil {
		return err
	}
	b.define(g.y, out, nchwForm)
	return nil
}

// spread turns a transposed convolution's input v (NCHW) into the input
// of the equivalent forward convolution: stride-1 copies of zp between
// pixels, then k-1-pad pixels of zp before and out+pad-(in-1)·s-1 after.
func (c *opCtx) spread(g *transposeConvGeometry, base, v string, zp int64) string {
	b := c.b
	n, ch, h, wd := g.xs[0], g.xs[3], g.xs[1], g.xs[2]
	sh, sw := g.strides[0], g.strides[1]
	if sh > 1 || sw > 1 {
		v = b.node(base+"/spread", &canon.Reshape{Shape: []int64{n, ch, h, 1, wd, 1}}, v)
		v = b.node(base+"/zeros", &canon.Pad{Mode: canon.PadConstant, PadsBegin: make([]int64, 6), PadsEnd: []int64{0, 0, 0, sh - 1, 0, sw - 1}, Value: float32(zp)}, v, "", "")
		v = b.node(base+"/upsampled", &canon.Reshape{Shape: []int64{n, ch, h * sh, wd * sw}}, v)
	}
	// v holds (in-1)·s+1 pixels and s-1 trailing zeros per axis.
	begin, end := make([]int64, 4), make([]int64, 4)
	crop := false
	for k := range 2 {
		in, s, kk := g.xs[1+k], g.strides[k], g.ws[1+k]
		begin[2+k] = kk - 1 - g.padsBegin[k]
		end[2+k] = g.ys[1+k] + g.padsBegin[k] - (in-1)*s - 1 - (s - 1)
		if begin[2+k] < 0 || end[2+k] < 0 {
			crop = true
		}
	}
	if crop {
		starts, ends := []int64{0, 0}, []int64{0, 0}
		for k := range 2 {
			size := g.xs[1+k] * g.strides[k]
			starts[k], ends[k] = max(-begin[2+k], 0), size-max(-end[2+k], 0)
			begin[2+k], end[2+k] = max(begin[2+k], 0), max(end[2+k], 0)
		}
		v = b.node(base+"/crop", &canon.Slice{Starts: starts, Ends: ends, Axes: []int64{2, 3}, Steps: []int64{1, 1}}, v, "", "", "", "")
	}
	if fmt.Sprint(begin, end) != fmt.Sprint(make([]int64, 4), make([]int64, 4)) {
		v = b.node(base+"/border", &canon.Pad{Mode: canon.PadConstant, PadsBegin: begin, PadsEnd: end, Value: float32(zp)}, v, "", "")
	}
	return v
}

// flipOHWIToOIHW returns w'[o,i,y,x] = w[o,kh-1-y,kw-1-x,i].
func flipOHWIToOIHW(t *canon.Tensor) (*canon.Tensor, error) {
	if len(t.Shape) != 4 || t.DType.Size() != 1 {
		return nil, fmt.Errorf("want a 4-D 8-bit filter, have %v of %s", t.Shape, t.DType)
	}
	o, kh, kw, ci := t.Shape[0], t.Shape[1], t.Shape[2], t.Shape[3]
	if o*kh*kw*ci != int64(len(t.Data)) {
		return nil, fmt.Errorf("shape %v does not match %d bytes", t.Shape, len(t.Data))
	}
	out := make([]byte, len(t.Data))
	for a := range o {
		for i := range ci {
			for y := range kh {
				for x := range kw {
					out[((a*ci+i)*kh+y)*kw+x] = t.Data[((a*kh+(kh-1-y))*kw+(kw-1-x))*ci+i]
				}
			}
		}
	}
	return &canon.Tensor{Name: t.Name + "/flipped", DType: t.DType, Shape: []int64{o, ci, kh, kw}, Layout: "OIHW", Data: out}, nil
}

// quantPool is AVERAGE_POOL_2D / MAX_POOL_2D on quantized data (input
// and output share their quantization in TFLite).
func (c *opCtx) quantPool(x int, xs []int64, kh, kw int64, win window, isMax bool, act tflitefb.ActivationFunctionType) error {
	b := c.b
	y := c.out(0)
	if err := c.sameQuant(x, y); err != nil {
		return err
	}
	dt, _, _, err := c.outType(y)
	if err != nil {
		return err
	}
	lo, hi, err := c.actRange(y, act)
	if err != nil {
		return err
	}
	xv, err := b.value(x, nchwForm)
	if err != nil {
		return err
	}
	name := b.base(y)
	r := rescaler{b: b, base: name}
	if isMax {
		// The maximum of integers is exact; then the activation clamp.
		v := b.node(name, &canon.MaxPool{Kernel: []int64{kh, kw}, Strides: win.strides, Dilations: []int64{1, 1}, PadsBegin: win.padsBegin, PadsEnd: win.padsEnd}, xv)
		b.define(y, r.clampCast(r.toInt64(v, 0), 0, lo, hi, dt), nchwForm)
		return nil
	}
	// Sum with an all-ones depthwise integer convolution, then divide by
	// the count of pixels inside the input, rounding half away from zero.
	ch := xs[3]
	ys := b.tensor(y).shape
	if len(ys) != 4 {
		return c.errf("output shape %v is not 4-D", ys)
	}
	if err := b.take(safeProduct(ch, kh, kw), "the pooling window's constants"); err != nil {
		return err
	}
	if err := b.take(safeProduct(16, ys[1], ys[2]), "the pooling window's constants"); err != nil {
		return err
	}
	ones := make([]byte, ch*kh*kw)
	for k := range ones {
		ones[k] = 1
	}
	w := b.addConst(&canon.Tensor{Name: name + "/ones", DType: canon.Int8, Shape: []int64{ch, 1, kh, kw}, Layout: "OIHW", Data: ones})
	op := &canon.ConvInteger{Strides: win.strides, Dilations: []int64{1, 1}, PadsBegin: win.padsBegin, PadsEnd: win.padsEnd, Group: ch}
	xdt, _, _, err := c.outType(x)
	if err != nil {
		return err
	}
	sum, err := c.intConvSum(name, xv, 0, xdt, w, op, kh*kw)
	if err != nil {
		return err
	}
	oh, ow := ys[1], ys[2]
	counts, halves := make([]int64, oh*ow), make([]int64, oh*ow)
	for i := range oh {
		for j := range ow {
			y0, x0 := i*win.strides[0]-win.padsBegin[0], j*win.strides[1]-win.padsBegin[1]
			nh := min(y0+kh, xs[1]) - max(y0, 0)
			nw := min(x0+kw, xs[2]) - max(x0, 0)
			if nh <= 0 || nw <= 0 {
				return c.errf("output pixel (%d, %d) covers no input pixel", i, j)
			}
			counts[i*ow+j], halves[i*ow+j] = nh*nw, nh*nw/2
		}
	}
	cnt := b.constI64(name+"/count", []int64{oh, ow}, counts)
	half := b.constI64(name+"/half_count", []int64{oh, ow}, halves)
	s := b.node(name+"/sign", &canon.Math{Fn: canon.MathSign}, sum)
	t := r.bin("round", canon.Add, sum, r.bin("half", canon.Mul, s, half))
	avg := r.bin("avg", canon.Div, t, cnt)
	b.define(y, r.clampCast(avg, 0, lo, hi, dt), nchwForm)
	return nil
}

// quantAddSub is ADD / SUB on int8 or int16 data: TFLite's general
// quantized path (inputs shifted left by 20 bits for int8, 15 for int16,
// rescaled to twice the larger input scale, summed, rescaled to the
// output).
func (c *opCtx) quantAddSub(a, bb int, fn canon.BinaryFn, act tflitefb.ActivationFunctionType) error {
	b := c.b
	if fn != canon.Add && fn != canon.Sub {
		return c.errf("quantized %s is not supported: its fixed-point kernel is not written here", c.op.opcode.name())
	}
	y := c.out(0)
	dt, _, _, err := c.outType(y)
	if err != nil {
		return err
	}
	if b.tensor(a).dtype != b.tensor(y).dtype || b.tensor(bb).dtype != b.tensor(y).dtype {
		return c.errf("inputs and output must share one quantized type")
	}
	leftShift := 20
	if dt == canon.Int16 {
		leftShift = 15
	} else if dt != canon.Int8 {
		return c.errf("quantized type %s is not supported (int8 and int16 are)", dt)
	}
	as, azp, err := c.quantOf(a)
	if err != nil {
		return err
	}
	bs, bzp, err := c.quantOf(bb)
	if err != nil {
		return err
	}
	ys, yzp, err := c.quantOf(y)
	if err != nil {
		return err
	}
	twiceMax := 2 * float64(max(as, bs))
	m1 := makeFixedMul([]float64{float64(as) / twiceMax})
	m2 := makeFixedMul([]float64{float64(bs) / twiceMax})
	mo := makeFixedMul([]float64{twiceMax / (float64(int64(1)<<leftShift) * float64(ys))})
	for _, m := range []fixedMul{m1, m2, mo} {
		if m.shift[0] > 0 {
			return c.errf("a rescaling multiplier is 1 or more; TFLite refuses such scales")
		}
	}
	lo, hi, err := c.actRange(y, act)
	if err != nil {
		return err
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
	name := b.base(y)
	r := rescaler{b: b, base: name}
	shift := b.constI64(name+"/left_shift", []int64{}, []int64{pow2(leftShift)})
	ra := rescaler{b: b, base: name + "/a"}
	rb := rescaler{b: b, base: name + "/b"}
	sa := ra.mul32(ra.bin("shift", canon.Mul, ra.toInt64(av, azp), shift), m1)
	sb := rb.mul32(rb.bin("shift", canon.Mul, rb.toInt64(bv, bzp), shift), m2)
	raw := r.bin("raw", fn, sa, sb)
	b.define(y, r.clampCast(r.mul32(raw, mo), yzp, lo, hi, dt), f)
	return nil
}

// quantLeakyRelu is LEAKY_RELU on int8 or int16 data: the identity and
// alpha multipliers are computed in float32 and then widened, as TFLite
// does.
func (c *opCtx) quantLeakyRelu(x int, alpha float32) error {
	b := c.b
	y := c.out(0)
	dt, lo, hi, err := c.outType(y)
	if err != nil {
		return err
	}
	xs, xzp, err := c.quantOf(x)
	if err != nil {
		return err
	}
	ys, yzp, err := c.quantOf(y)
	if err != nil {
		return err
	}
	mAlpha := makeFixedMul([]float64{float64(xs * alpha / ys)})
	mID := makeFixedMul([]float64{float64(xs / ys)})
	f := b.heldForm(x)
	xv, err := b.value(x, f)
	if err != nil {
		return err
	}
	name := b.base(y)
	r := rescaler{b: b, base: name}
	xi := r.toInt64(xv, xzp)
	pos := rescaler{b: b, base: name + "/id"}.mul32(xi, mID)
	neg := rescaler{b: b, base: name + "/alpha"}.mul32(xi, mAlpha)
	zero := b.constI64(name+"/zero", []int64{}, []int64{0})
	cond := b.node(name+"/nonneg", &canon.Compare{Fn: canon.CmpGreaterOrEqual}, xi, zero)
	sel := b.node(name+"/select", &canon.Where{}, cond, pos, neg)
	b.define(y, r.clampCast(sel, yzp, lo, hi, dt), f)
	return nil
}

// quantFullyConnected is FULLY_CONNECTED on int8 data: an integer matrix
// product with the zero points, the bias, TFLite's rescaling.
func (c *opCtx) quantFullyConnected(xv string, x, w, bias int, act tflitefb.ActivationFunctionType, keep bool, colPerm []int64) error {
	b := c.b
	y := c.out(0)
	if b.tensor(x).dtype != tflitefb.TensorTypeINT8 || b.tensor(w).dtype != tflitefb.TensorTypeINT8 {
		return c.errf("quantized FULLY_CONNECTED is supported for int8 data and int8 weights, not %s data and %s weights",
			tflitefb.EnumNamesTensorType[b.tensor(x).dtype], tflitefb.EnumNamesTensorType[b.tensor(w).dtype])
	}
	_, xzp, err := c.quantOf(x)
	if err != nil {
		return err
	}
	wt, err := b.fileTensor(w)
	if err != nil {
		return err
	}
	if colPerm != nil {
		if wt, err = b.permutedColumns(w, colPerm); err != nil {
			return err
		}
	}
	out := wt.Shape[0]
	wT, err := permuteTensor(wt, []int64{1, 0})
	if err != nil {
		return c.errf("%v", err)
	}
	wq := b.tensor(w).quant
	if wq == nil {
		return c.errf("weights %s have no quantization parameters", b.tensorTitle(w))
	}
	wzp := wq.zero[0]
	for _, z := range wq.zero {
		if z != wzp {
			return c.errf("weights %s have per-channel zero points", b.tensorTitle(w))
		}
	}
	name := b.base(y)
	wv := b.addConst(wT)
	i8 := func(what string, v int64) string {
		return b.addConst(&canon.Tensor{Name: name + "/" + what, DType: canon.Int8, Shape: []int64{}, Data: []byte{byte(int8(v))}})
	}
	acc := b.node(name+"/acc", &canon.MatMulInteger{}, xv, wv, i8("x_zp", xzp), i8("w_zp", wzp))
	if err := b.take(int64(len(wt.Data)), b.tensorTitle(w)); err != nil {
		return err
	}
	r := rescaler{b: b, base: name, cs: chanShape(int(out), 2, 1)}
	acc64 := r.toInt64(acc, 0)
	if bias >= 0 {
		bv, err := c.biasConst(bias, out, 2, 1, name)
		if err != nil {
			return err
		}
		acc64 = r.bin("bias", canon.Add, acc64, bv)
	}
	fm, err := c.convMultipliers(x, w, y, out)
	if err != nil {
		return err
	}
	if allSame(fm) {
		fm = fixedMul{mult: fm.mult[:1], shift: fm.shift[:1]}
	}
	lo, hi, err := c.actRange(y, act)
	if err != nil {
		return err
	}
	dt, _, _, err := c.outType(y)
	if err != nil {
		return err
	}
	_, yzp, err := c.quantOf(y)
	if err != nil {
		return err
	}
	return c.finishFC(r.clampCast(r.mul32(acc64, fm), yzp, lo, hi, dt), y, name)
}
