package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// PyTorch's quantized tensors (quint8, qint8) are read only where they are
// made and consumed at once: quantize_per_tensor gives a quantizedVal (its
// integers as a uint8/int8 tensor, with the scale and zero point), which
// int_repr and dequantize read. Any other use of it is refused, as the IR
// holds no quantized tensor type.
func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.quantize_per_tensor":              entry(opQuantizePerTensor, "Mul", "Round", "Add", "Clip", "Cast"),
		"torch.int_repr":                         entry(opIntRepr),
		"torch.dequantize":                       entry(opDequantize, "Cast", "Sub", "Mul"),
		"torch.fake_quantize_per_channel_affine": entry(opFakeQuantizePerChannel, "Mul", "Round", "Add", "Clip", "Sub"),
	})
}

// quantizedVal is a per-tensor quantized tensor: real = (ints - zeroPoint) * scale.
type quantizedVal struct {
	ints      *tensorVal // uint8 (quint8) or int8 (qint8)
	scale     float32
	zeroPoint int64
}

// quantizedTypes are the quantized dtype codes read: their integer dtype
// and range.
var quantizedTypes = map[int64]struct {
	dt       canon.DType
	min, max int64
}{
	12: {canon.Int8, -128, 127}, // qint8
	13: {canon.Uint8, 0, 255},   // quint8
}

// opQuantizePerTensor is torch.quantize_per_tensor(input, scale,
// zero_point, dtype). PyTorch's x86 kernel (FBGEMM's Quantize, and its
// AVX2 form) computes, in float32 with inv = 1.0f/scale,
// clamp(zp + nearbyint(x·inv), qmin, qmax), rounding half to even: that is
// Mul, Round, Add and Clip, then a Cast to the integer type. (ONNX's
// QuantizeLinear divides by the scale, which rounds differently.)
func opQuantizePerTensor(c *opCall) (value, error) {
	x, err := c.bindInput("self", "scale", "zero_point", "dtype")
	if err != nil {
		return nil, err
	}
	scale, zp, err := quantizeParams(c)
	if err != nil {
		return nil, err
	}
	code, err := c.int(3)
	if err != nil {
		return nil, err
	}
	qt, ok := quantizedTypes[code]
	if !ok {
		return nil, c.errf("dtype code %d: only torch.quint8 (13) and torch.qint8 (12) are read (qint32's range is not exact in float32)", code)
	}
	if dt := c.b().info(x).DType; dt != canon.Float32 && dt != canon.Undefined {
		return nil, c.errf("input is %s; only float32 tensors are quantized here", dt)
	}
	sc := float32(scale)
	if !(sc > 0) || math.IsInf(float64(sc), 0) {
		return nil, c.errf("scale %g must be a positive finite float32", scale)
	}
	if zp < qt.min || zp > qt.max {
		return nil, c.errf("zero_point %d is outside the quantized type's range [%d, %d]", zp, qt.min, qt.max)
	}
	b := c.b()
	q, err := emitQuantize(c, x, scalarF32(1/sc), scalarF32(float32(zp)), qt.min, qt.max)
	if err != nil {
		return nil, err
	}
	ints, err := b.emit1(c.scope, &canon.Cast{To: qt.dt}, q)
	if err != nil {
		return nil, err
	}
	return &quantizedVal{ints: ints, scale: sc, zeroPoint: zp}, nil
}

// emitQuantize is clamp(zp + round(x·inv), qmin, qmax) in float32, the
// rounding half to even (nearbyint); inv and zp broadcast against x.
func emitQuantize(c *opCall, x, inv, zp *tensorVal, qmin, qmax int64) (*tensorVal, error) {
	b := c.b()
	m, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, x, inv)
	if err != nil {
		return nil, err
	}
	r, err := b.emit1(c.scope, &canon.Math{Fn: canon.MathRound}, m)
	if err != nil {
		return nil, err
	}
	q, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, r, zp)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Clip{Min: float32(qmin), Max: float32(qmax)}, q)
}

func scalarF32(v float32) *tensorVal {
	return &tensorVal{konst: canon.NewFloat32Tensor("", []int64{}, []float32{v})}
}

func quantizedArg(c *opCall) (*quantizedVal, error) {
	q, ok := c.bound[0].(*quantizedVal)
	if !ok {
		return nil, c.errf("argument self must be a quantized tensor (from torch.quantize_per_tensor), got %s", typeName(c.bound[0]))
	}
	return q, nil
}

// opIntRepr is Tensor.int_repr(): the quantized tensor's integers.
func opIntRepr(c *opCall) (value, error) {
	if err := c.bind("self"); err != nil {
		return nil, err
	}
	if pc, ok := c.bound[0].(*perChannelQuantizedVal); ok {
		return pc.ints, nil
	}
	q, err := quantizedArg(c)
	if err != nil {
		return nil, err
	}
	return q.ints, nil
}

// opDequantize is torch.dequantize(self): (q - zero_point)·scale in
// float32, as PyTorch's scalar kernel computes it. Its vectorized kernel
// (used for runs of 32 entries) computes the same with a fused
// multiply-add, q·scale + (-zero_point·scale), whose result can differ
// in the last bit (float rounding), never more.
func opDequantize(c *opCall) (value, error) {
	if err := c.bind("self"); err != nil {
		return nil, err
	}
	if t, ok := c.bound[0].(*tensorVal); ok && c.b().info(t).DType.IsFloat() {
		return t, nil // a float tensor dequantizes to itself
	}
	if pc, ok := c.bound[0].(*perChannelQuantizedVal); ok {
		return dequantizePerChannel(c, pc)
	}
	q, err := quantizedArg(c)
	if err != nil {
		return nil, err
	}
	b := c.b()
	f, err := b.emit1(c.scope, &canon.Cast{To: canon.Float32}, q.ints)
	if err != nil {
		return nil, err
	}
	d, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Sub}, f, scalarF32(float32(q.zeroPoint)))
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, d, scalarF32(q.scale))
}

// opFakeQuantizePerChannel is torch.fake_quantize_per_channel_affine(
// input, scale, zero_point, axis, quant_min, quant_max). PyTorch's CPU
// kernel, for an integer zero point, computes per entry in float32 with
// inv = 1.0f/scale[c]: (clamp(zp[c] + nearbyint(x·inv), qmin, qmax) -
// zp[c])·scale[c]; the same float ops as the per-tensor form, with the
// constants laid out along axis. A float zero point (rounded after it is
// added) is not read.
func opFakeQuantizePerChannel(c *opCall) (value, error) {
	x, err := c.bindInput("self", "scale", "zero_point", "axis", "quant_min", "quant_max")
	if err != nil {
		return nil, err
	}
	st, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	zt, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	scales, ok := constFloats(c, st)
	if !ok {
		return nil, c.errf("scale must be a 1-D float tensor known at import (a constant or a weight)")
	}
	if !c.b().info(zt).DType.IsInt() {
		return nil, c.errf("zero_point is %s; only an integer zero point is read (a float one is rounded after it is added, another formula)", c.b().info(zt).DType)
	}
	zps, ok := constInts(c, zt)
	if !ok {
		return nil, c.errf("zero_point must be a 1-D integer tensor known at import (a constant or a weight)")
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	axis, err := c.int(3)
	if err != nil {
		return nil, err
	}
	if axis, err = c.axis(axis, len(shape)); err != nil {
		return nil, err
	}
	qmin, err := c.int(4)
	if err != nil {
		return nil, err
	}
	qmax, err := c.int(5)
	if err != nil {
		return nil, err
	}
	n := shape[axis]
	if int64(len(scales)) != n || int64(len(zps)) != n {
		return nil, c.errf("scale and zero_point have %d and %d entries; dimension %d of the input has %d", len(scales), len(zps), axis, n)
	}
	if dt := c.b().info(x).DType; dt != canon.Float32 && dt != canon.Undefined {
		return nil, c.errf("input is %s; only float32 fake quantization is read", dt)
	}
	if qmin > qmax || qmin < -(1<<24) || qmax > 1<<24 {
		return nil, c.errf("quant_min %d and quant_max %d must satisfy quant_min <= quant_max within ±2^24", qmin, qmax)
	}
	// Per-channel constants of shape (n, 1, ..., 1) broadcast along axis.
	cshape := []int64{n}
	for range shape[axis+1:] {
		cshape = append(cshape, 1)
	}
	inv, zpf, scf := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range scales {
		s := float32(scales[i])
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return nil, c.errf("scale %g (channel %d) must be a positive finite float32", scales[i], i)
		}
		if zps[i] < qmin || zps[i] > qmax {
			return nil, c.errf("zero_point %d (channel %d) must lie within [quant_min, quant_max] = [%d, %d]", zps[i], i, qmin, qmax)
		}
		inv[i], zpf[i], scf[i] = 1/s, float32(zps[i]), s
	}
	k := func(v []float32) *tensorVal { return &tensorVal{konst: canon.NewFloat32Tensor("", cshape, v)} }
	q, err := emitQuantize(c, x, k(inv), k(zpf), qmin, qmax)
	if err != nil {
		return nil, err
	}
	b := c.b()
	d, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Sub}, q, k(zpf))
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, d, k(scf))
}

// constFloats reads the values of a 0-D or 1-D float tensor known at
// import (a constant or a weight).
func constFloats(c *opCall, t *tensorVal) ([]float64, bool) {
	vi := c.b().info(t)
	if t.ref == nil && t.konst == nil || !vi.DType.IsFloat() || len(vi.Shape) > 1 {
		return nil, false
	}
	k := t.konst
	if k == nil {
		name, err := c.b().valueName(t)
		if err != nil {
			return nil, false
		}
		if k = c.b().vals[name].Const; k == nil {
			return nil, false
		}
	}
	v, err := k.Float64s()
	return v, err == nil
}
