package torchscript

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Element-wise quantized operators: quantized::add, add_relu, mul,
// mul_relu, hardswish and torch.cat on quantized tensors. PyTorch's CPU
// kernels dequantize each input to float32, compute in float32 and
// quantize the result with clamp(nearbyint(v·(1/scale)) + zp). Their
// vectorized loops dequantize with a fused multiply-add, q·s + (-zp·s),
// their scalar tails with (q - zp)·s; the two can differ in the last bit
// of the float, and so, rarely, the result by one step. add and hardswish
// are read with the fused form (computed exactly in float64 and rounded
// once to float32), mul and cat with the plain one, the forms that agree
// most often with PyTorch 1.13 on x86 (cat exactly; add, mul and
// hardswish within one step).
func init() {
	k := []string{"Cast", "Mul", "Add", "Sub", "Div", "Round", "Clip"}
	optable.Add(&opTable, map[string]opEntry{
		"ops.quantized.add":       entry(opQuantizedBinary(canon.Add, false), k...),
		"ops.quantized.add_relu":  entry(opQuantizedBinary(canon.Add, true), k...),
		"ops.quantized.mul":       entry(opQuantizedBinary(canon.Mul, false), k...),
		"ops.quantized.mul_relu":  entry(opQuantizedBinary(canon.Mul, true), k...),
		"ops.quantized.hardswish": entry(opQuantizedHardswish, k...),
		"ops.quantized.cat":       entry(opQuantizedCat(true), append(k, "Concat")...),
	})
}

// dequantize emits q's real values in float32, in the fused form
// (fused) or as (q - zp)·scale.
func dequantize(c *opCall, q *quantizedVal, fused bool) (*tensorVal, error) {
	b := c.b()
	if !fused {
		f, err := b.emit1(c.scope, &canon.Cast{To: canon.Float32}, q.ints)
		if err != nil {
			return nil, err
		}
		if f, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Sub}, f, scalarF32(float32(q.zeroPoint))); err != nil {
			return nil, err
		}
		return b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, f, scalarF32(q.scale))
	}
	// q·s is exact in float64 (8 by 24 bits), and so is adding the
	// float32 -zp·s: one rounding to float32 follows, as in a fused multiply-add.
	premul := float32(-float32(q.zeroPoint) * q.scale)
	k := func(v float64) *tensorVal {
		data := make([]byte, 8)
		binary.LittleEndian.PutUint64(data, math.Float64bits(v))
		return &tensorVal{konst: &canon.Tensor{DType: canon.Float64, Shape: []int64{}, Data: data}}
	}
	f, err := b.emit1(c.scope, &canon.Cast{To: canon.Float64}, q.ints)
	if err != nil {
		return nil, err
	}
	if f, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, f, k(float64(q.scale))); err != nil {
		return nil, err
	}
	if f, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, f, k(float64(premul))); err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Cast{To: canon.Float32}, f)
}

// quantizeTo emits clamp(nearbyint(v·(1/scale)) + zp, lo, hi) as quint8.
func quantizeTo(c *opCall, v *tensorVal, scale float32, zp int64, relu bool) (*quantizedVal, error) {
	lo := int64(0)
	if relu {
		lo = zp
	}
	q, err := emitQuantize(c, v, scalarF32(1/scale), scalarF32(float32(zp)), lo, 255)
	if err != nil {
		return nil, err
	}
	ints, err := c.b().emit1(c.scope, &canon.Cast{To: canon.Uint8}, q)
	if err != nil {
		return nil, err
	}
	return &quantizedVal{ints: ints, scale: scale, zeroPoint: zp}, nil
}

// outputQParams reads the (scale, zero_point) arguments at i, i+1.
func outputQParams(c *opCall, i int) (float32, int64, error) {
	s, z, err := qparamsAt(c, i)
	if err != nil {
		return 0, 0, err
	}
	if !(s > 0) || math.IsInf(s, 0) || z < 0 || z > 255 {
		return 0, 0, c.errf("output scale %g and zero point %d must be positive finite and within [0, 255]", s, z)
	}
	return float32(s), z, nil
}

func quantizedUint8(c *opCall, i int) (*quantizedVal, error) {
	q, ok := c.bound[i].(*quantizedVal)
	if !ok {
		return nil, c.errf("argument %s must be a quantized tensor, got %s", c.params[i], typeName(c.bound[i]))
	}
	if dt := c.b().info(q.ints).DType; dt != canon.Uint8 {
		return nil, c.errf("argument %s is %s; only quint8 tensors are read here", c.params[i], dt)
	}
	return q, nil
}

func opQuantizedBinary(fn canon.BinaryFn, relu bool) opHandler {
	fused := fn == canon.Add
	return func(c *opCall) (value, error) {
		if err := c.bind("qa", "qb", "scale", "zero_point"); err != nil {
			return nil, err
		}
		qa, err := quantizedUint8(c, 0)
		if err != nil {
			return nil, err
		}
		qb, err := quantizedUint8(c, 1)
		if err != nil {
			return nil, err
		}
		s, z, err := outputQParams(c, 2)
		if err != nil {
			return nil, err
		}
		da, err := dequantize(c, qa, fused)
		if err != nil {
			return nil, err
		}
		db, err := dequantize(c, qb, fused)
		if err != nil {
			return nil, err
		}
		v, err := c.b().emit1(c.scope, &canon.Binary{Fn: fn}, da, db)
		if err != nil {
			return nil, err
		}
		return quantizeTo(c, v, s, z, relu)
	}
}

// opQuantizedHardswish is x·min(max(x + 3, 0), 6)/6 on the dequantized input.
func opQuantizedHardswish(c *opCall) (value, error) {
	if err := c.bind("qx", "scale", "zero_point"); err != nil {
		return nil, err
	}
	q, err := quantizedUint8(c, 0)
	if err != nil {
		return nil, err
	}
	s, z, err := outputQParams(c, 1)
	if err != nil {
		return nil, err
	}
	b := c.b()
	x, err := dequantize(c, q, true)
	if err != nil {
		return nil, err
	}
	t, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, x, scalarF32(3))
	if err != nil {
		return nil, err
	}
	if t, err = b.emit1(c.scope, &canon.Clip{Min: 0, Max: 6}, t); err != nil {
		return nil, err
	}
	if t, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, x, t); err != nil {
		return nil, err
	}
	if t, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Div}, t, scalarF32(6)); err != nil {
		return nil, err
	}
	return quantizeTo(c, t, s, z, false)
}

// opQuantizedCat is quantized::cat(qx, dim, scale, zero_point) (explicit
// output parameters) or, with explicit false, torch.cat on quantized
// tensors, whose result takes the first input's parameters.
func opQuantizedCat(explicit bool) opHandler {
	return func(c *opCall) (value, error) {
		schema := []string{"tensors", "dim=0"}
		if explicit {
			schema = []string{"qx", "dim", "scale", "zero_point"}
		}
		if err := c.bind(schema...); err != nil {
			return nil, err
		}
		l, ok := c.bound[0].(*listVal)
		if !ok || len(l.items) == 0 {
			return nil, c.errf("argument %s must be a non-empty list of quantized tensors", c.params[0])
		}
		qs := make([]*quantizedVal, len(l.items))
		for i, it := range l.items {
			if qs[i], ok = it.(*quantizedVal); !ok || c.b().info(qs[i].ints).DType != canon.Uint8 {
				return nil, c.errf("item %d of %s is %s; all items must be quint8 quantized tensors", i, c.params[0], typeName(it))
			}
		}
		dim, err := c.int(1)
		if err != nil {
			return nil, err
		}
		s, z := qs[0].scale, qs[0].zeroPoint
		if explicit {
			if s, z, err = outputQParams(c, 2); err != nil {
				return nil, err
			}
		}
		rank, err := c.rankOf(qs[0].ints, "the first input")
		if err != nil {
			return nil, err
		}
		axis, err := c.axis(dim, rank)
		if err != nil {
			return nil, err
		}
		ints := make([]*tensorVal, len(qs))
		for i, q := range qs {
			if q.scale == s && q.zeroPoint == z {
				ints[i] = q.ints
				continue
			}
			d, err := dequantize(c, q, false)
			if err != nil {
				return nil, err
			}
			r, err := quantizeTo(c, d, s, z, false)
			if err != nil {
				return nil, err
			}
			ints[i] = r.ints
		}
		out, err := c.b().emit1(c.scope, &canon.Concat{Axis: axis}, ints...)
		if err != nil {
			return nil, err
		}
		return &quantizedVal{ints: out, scale: s, zeroPoint: z}, nil
	}
}
