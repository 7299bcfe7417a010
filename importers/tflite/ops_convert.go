package tfliteimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// convDequantize is DEQUANTIZE: float16 to float32 (a constant float16
// weight stays float16 data read through a Cast), or quantized integers to
// float32, (x - zero_point)·scale (TFLite computes it in double and rounds
// once; the float32 product of an integer below 2^24 and the scale rounds
// the same exact product once, so DequantizeLinear is exact).
func convDequantize(c *opCtx) error {
	b := c.b
	x, err := c.need(0)
	if err != nil {
		return err
	}
	y := c.out(0)
	t := b.tensor(x)
	if b.tensor(y).dtype != tflitefb.TensorTypeFLOAT32 {
		return c.errf("output type %s is not supported (float32 is)", tflitefb.EnumNamesTensorType[b.tensor(y).dtype])
	}
	if t.dtype == tflitefb.TensorTypeFLOAT16 {
		if b.isConst(x) {
			b.dequantOf[y] = x
			return nil
		}
		f := b.heldForm(x)
		xv, err := b.value(x, f)
		if err != nil {
			return err
		}
		b.define(y, b.node(b.tensor(y).name, &canon.Cast{To: canon.Float32}, xv), f)
		return nil
	}
	if !b.quantized(x) {
		return c.errf("input %s of type %s is not quantized", b.tensorTitle(x), tflitefb.EnumNamesTensorType[t.dtype])
	}
	dt, _, _, err := c.outType(x)
	if err != nil {
		return err
	}
	f := b.heldForm(x)
	q := t.quant
	axis := int64(0)
	shape := []int64{}
	if q.perAxis() {
		axis = int64(axisIn(q.axis, len(t.shape), f))
		shape = []int64{int64(len(q.scale))}
	}
	name := b.base(y)
	scale := b.constF32(name+"/scale", shape, q.scale)
	zp := b.addConst(intTensor(name+"/zero_point", dt, shape, q.zero))
	xv, err := b.value(x, f)
	if err != nil {
		return err
	}
	b.define(y, b.node(name, &canon.DequantizeLinear{Axis: axis}, xv, scale, zp), f)
	return nil
}

// intTensor makes a constant of integer type dt.
func intTensor(name string, dt canon.DType, shape []int64, v []int64) *canon.Tensor {
	es := dt.Size()
	data := make([]byte, len(v)*es)
	for i, x := range v {
		for k := range es {
			data[i*es+k] = byte(uint64(x) >> (8 * k))
		}
	}
	return &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: data}
}

// convQuantize is QUANTIZE: float32 to integers with TFLite's
// AffineQuantize (x / scale in float32, rounded half away from zero, plus
// the zero point, saturated), or integers to integers with TFLite's
// Requantize (a fixed-point rescaling).
func convQuantize(c *opCtx) error {
	b := c.b
	x, err := c.need(0)
	if err != nil {
		return err
	}
	y := c.out(0)
	dt, lo, hi, err := c.outType(y)
	if err != nil {
		return err
	}
	ys, yzp, err := c.quantOf(y)
	if err != nil {
		return err
	}
	f := b.heldForm(x)
	xv, err := b.value(x, f)
	if err != nil {
		return err
	}
	name := b.base(y)
	r := rescaler{b: b, base: name}
	if b.quantized(x) {
		xs, xzp, err := c.quantOf(x)
		if err != nil {
			return err
		}
		m := makeFixedMul([]float64{float64(xs) / float64(ys)})
		b.define(y, r.clampCast(r.mul32(r.toInt64(xv, xzp), m), yzp, lo, hi, dt), f)
		return nil
	}
	if b.tensor(x).dtype != tflitefb.TensorTypeFLOAT32 {
		return c.errf("input type %s is not supported (float32 or a quantized type is)", tflitefb.EnumNamesTensorType[b.tensor(x).dtype])
	}
	v := b.node(name+"/scaled", &canon.Binary{Fn: canon.Div}, xv, b.constF32(name+"/scale", []int64{}, []float32{ys}))
	v = b.node(name+"/f64", &canon.Cast{To: canon.Float64}, v)
	// round half away from zero: sign(v)·floor(|v| + 0.5), exact in float64.
	s := b.node(name+"/sign", &canon.Math{Fn: canon.MathSign}, v)
	a := b.node(name+"/abs", &canon.Math{Fn: canon.MathAbs}, v)
	half := b.addConst(&canon.Tensor{Name: name + "/half", DType: canon.Float64, Shape: []int64{}, Data: []byte{0, 0, 0, 0, 0, 0, 0xe0, 0x3f}})
	a = b.node(name+"/floor", &canon.Math{Fn: canon.MathFloor}, b.node(name+"/add_half", &canon.Binary{Fn: canon.Add}, a, half))
	v = b.node(name+"/rounded", &canon.Binary{Fn: canon.Mul}, s, a)
	// Saturate in float64 first: a huge or infinite value has no int64.
	v = b.node(name+"/max_f", &canon.Clip{Min: float32(lo - yzp), Max: float32(hi - yzp)}, v, "", "")
	v = b.node(name+"/int", &canon.Cast{To: canon.Int64}, v)
	b.define(y, r.clampCast(v, yzp, lo, hi, dt), f)
	return nil
}
