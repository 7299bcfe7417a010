package torchscript

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// torch.quantize_per_channel makes a per-channel quantized tensor, read
// here where it is made and consumed at once: by int_repr (its integers)
// and dequantize. PyTorch's quantized operators take per-tensor quantized
// activations, so any other use is refused with the value's type named.
func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.quantize_per_channel": entry(opQuantizePerChannel, "Mul", "Round", "Add", "Clip", "Cast"),
	})
}

// perChannelQuantizedVal is real = (ints - zeroPoints[c])·scales[c] along
// axis; scales are kept in double precision, as PyTorch keeps them.
type perChannelQuantizedVal struct {
	ints       *tensorVal // uint8 (quint8) or int8 (qint8)
	scales     []float64
	zeroPoints []int64
	axis       int64
	rank       int
}

// opQuantizePerChannel is torch.quantize_per_channel(input, scales,
// zero_points, axis, dtype). PyTorch's CPU kernel quantizes entry by entry
// with the per-tensor formula of the channel's float32 scale: with
// inv = 1.0f/(float)scale[c], clamp(zp[c] + nearbyint(x·inv), qmin, qmax)
// in float32 (checked against PyTorch 1.13 at exact half steps, where
// dividing by the scale, in float32 or double, rounds differently).
func opQuantizePerChannel(c *opCall) (value, error) {
	x, err := c.bindInput("self", "scales", "zero_points", "axis", "dtype")
	if err != nil {
		return nil, err
	}
	b := c.b()
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
		return nil, c.errf("scales must be a 1-D float tensor known at import (a constant or a weight); scales computed at run time are not read")
	}
	if !b.info(zt).DType.IsInt() {
		return nil, c.errf("zero_points is %s: float zero points (torch.per_channel_affine_float_qparams, used by quantized embeddings) quantize with another formula, which is not read; give integer zero points", b.info(zt).DType)
	}
	zps, ok := constInts(c, zt)
	if !ok {
		return nil, c.errf("zero_points must be a 1-D integer tensor known at import (a constant or a weight)")
	}
	code, err := c.int(4)
	if err != nil {
		return nil, err
	}
	qt, ok := quantizedTypes[code]
	if !ok {
		return nil, c.errf("dtype code %d: only torch.quint8 (13) and torch.qint8 (12) are read (qint32's range is not exact in float32)", code)
	}
	if dt := b.info(x).DType; dt != canon.Float32 && dt != canon.Undefined {
		return nil, c.errf("input is %s; only float32 tensors are quantized here", dt)
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
	n := shape[axis]
	if int64(len(scales)) != n || int64(len(zps)) != n {
		return nil, c.errf("scales and zero_points have %d and %d entries; dimension %d of the input has %d", len(scales), len(zps), axis, n)
	}
	inv, zpf := make([]float32, n), make([]float32, n)
	for i, s := range scales {
		s32 := float32(s)
		if !(s32 > 0) || math.IsInf(float64(s32), 0) {
			return nil, c.errf("scale %g (channel %d) must be a positive finite float32", s, i)
		}
		if zps[i] < qt.min || zps[i] > qt.max {
			return nil, c.errf("zero point %d (channel %d) is outside the quantized type's range [%d, %d]", zps[i], i, qt.min, qt.max)
		}
		inv[i], zpf[i] = 1/s32, float32(zps[i])
	}
	cshape := channelShape(n, len(shape)-int(axis)-1)
	k := func(v []float32) *tensorVal { return &tensorVal{konst: canon.NewFloat32Tensor("", cshape, v)} }
	q, err := emitQuantize(c, x, k(inv), k(zpf), qt.min, qt.max)
	if err != nil {
		return nil, err
	}
	ints, err := b.emit1(c.scope, &canon.Cast{To: qt.dt}, q)
	if err != nil {
		return nil, err
	}
	return &perChannelQuantizedVal{ints: ints, scales: scales, zeroPoints: zps, axis: axis, rank: len(shape)}, nil
}

// channelShape is (n, 1, ..., 1) with trailing ones: a per-channel
// constant that broadcasts along an axis that many dimensions from the end.
func channelShape(n int64, trailing int) []int64 {
	s := []int64{n}
	for range trailing {
		s = append(s, 1)
	}
	return s
}

// dequantizePerChannel is dequantize() of a per-channel quantized tensor.
// PyTorch's kernel computes (float(q) - zp[c])·scale[c] with the scale in
// double precision and rounds the product to float32; here: Cast to
// float64, Sub, Mul, Cast to float32, the same roundings (the difference
// is exact in either precision).
func dequantizePerChannel(c *opCall, q *perChannelQuantizedVal) (value, error) {
	b := c.b()
	n := int64(len(q.scales))
	cshape := channelShape(n, q.rank-int(q.axis)-1)
	zpd := make([]float64, n)
	for i, z := range q.zeroPoints {
		zpd[i] = float64(z)
	}
	f, err := b.emit1(c.scope, &canon.Cast{To: canon.Float64}, q.ints)
	if err != nil {
		return nil, err
	}
	d, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Sub}, f, float64Const(cshape, zpd))
	if err != nil {
		return nil, err
	}
	m, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, d, float64Const(cshape, q.scales))
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Cast{To: canon.Float32}, m)
}

// float64Const is a float64 constant of the given shape.
func float64Const(shape []int64, v []float64) *tensorVal {
	data := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(x))
	}
	return &tensorVal{konst: &canon.Tensor{DType: canon.Float64, Shape: shape, Data: data}}
}
