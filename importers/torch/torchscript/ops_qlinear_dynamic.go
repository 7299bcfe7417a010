package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Dynamic quantized linear layers (quantized::linear_dynamic and
// linear_relu_dynamic, from torch.ao.quantization.quantize_dynamic) on
// PyTorch 1.13's x86 engine (onednn). The input's parameters are chosen at
// run time by ChooseQuantizationParams (aten/src/ATen/native/quantized/cpu/
// QuantUtils.h) over [min(x), max(x)] widened to hold 0, with qmax 127
// under reduce_range (255 without), in double precision:
//
//	s  = (max - min) / qmax            (0.1 when float(s) is 0 or 1/float(s) overflows)
//	     when s < 6.1e-5f: s = 6.1e-5f, min and max scaled by 6.1e-5f/float(s) in float32
//	zp = clamp(nearbyint(z0), 0, qmax) where z0 = -min/s or qmax - max/s,
//	     whichever has the smaller |...| error term
//
// and then, in float32 with isx = float(1/s) and isw = 1/sw[c]:
//
//	q   = clamp(nearbyint(x·isx + zp), 0, 255)
//	acc = Σ (q - zp)·w                           (int32)
//	y   = (float(acc) + bias·(isx·isw)) · (1/(isx·isw))
//
// (measured bit for bit against PyTorch 1.13, including inputs at exact
// half steps, where scaling by float(s) instead of 1/s rounds otherwise).
func opQuantizedLinearDynamic(relu bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("X", "W_prepack", "reduce_range=False")
		if err != nil {
			return nil, err
		}
		p, ok := c.bound[1].(*packedParams)
		if !ok || p.conv {
			return nil, c.errf("argument W_prepack must be a linear layer's packed parameters (from the archive), got %s", typeName(c.bound[1]))
		}
		reduce, err := c.bool(2)
		if err != nil {
			return nil, err
		}
		b := c.b()
		if dt := b.info(x).DType; dt != canon.Float32 && dt != canon.Undefined {
			return nil, c.errf("input is %s; dynamic quantized linear layers take float32", dt)
		}
		w, bias, err := loadPacked(c, p)
		if err != nil {
			return nil, err
		}
		if len(w.ints.Shape) != 2 {
			return nil, c.errf("packed weight %s has shape %v, not (out_features, in_features)", p.path, w.ints.Shape)
		}
		outCh, inCh := w.ints.Shape[0], w.ints.Shape[1]
		if len(w.scales) != 1 && int64(len(w.scales)) != outCh {
			return nil, c.errf("packed weight %s has %d scales for %d output channels", p.path, len(w.scales), outCh)
		}
		if bias != nil && int64(len(bias)) != outCh {
			return nil, c.errf("bias has %d entries for %d output features", len(bias), outCh)
		}
		qmax := 255.0
		if reduce {
			qmax = 127
		}
		e := &dynEmitter{c: c}
		inv, zpF, zpU8 := e.chooseQParams(x, qmax)
		// q = clamp(nearbyint(x·isx + zp), 0, 255) as uint8.
		q := e.op(&canon.Cast{To: canon.Uint8}, e.op(&canon.Clip{Min: 0, Max: 255}, e.op(&canon.Math{Fn: canon.MathRound},
			e.op(&canon.Binary{Fn: canon.Add}, e.op(&canon.Binary{Fn: canon.Mul}, x, inv), zpF))))
		wt := &canon.Tensor{DType: canon.Int8, Shape: []int64{inCh, outCh}, Data: make([]byte, inCh*outCh)}
		for o := int64(0); o < outCh; o++ {
			for i := int64(0); i < inCh; i++ {
				wt.Data[i*outCh+o] = w.ints.Data[o*inCh+i]
			}
		}
		acc := e.op(&canon.MatMulInteger{}, q, &tensorVal{konst: wt}, zpU8)
		isw := make([]float32, outCh)
		for o := range isw {
			s := w.scales[0]
			if len(w.scales) > 1 {
				s = w.scales[o]
			}
			if !(s > 0) || math.IsInf(s, 0) {
				return nil, c.errf("weight scale %g (channel %d) must be positive and finite", s, o)
			}
			isw[o] = 1 / float32(s)
		}
		bs := e.op(&canon.Binary{Fn: canon.Mul}, inv, &tensorVal{konst: canon.NewFloat32Tensor("", []int64{outCh}, isw)})
		mult := e.op(&canon.Binary{Fn: canon.Div}, scalarF32(1), bs)
		y := e.op(&canon.Cast{To: canon.Float32}, acc)
		if bias != nil {
			bf := make([]float32, outCh)
			for o, v := range bias {
				bf[o] = float32(v)
			}
			y = e.op(&canon.Binary{Fn: canon.Add}, y, e.op(&canon.Binary{Fn: canon.Mul}, &tensorVal{konst: canon.NewFloat32Tensor("", []int64{outCh}, bf)}, bs))
		}
		y = e.op(&canon.Binary{Fn: canon.Mul}, y, mult)
		if relu {
			y = e.op(&canon.Clip{Min: 0, Max: float32(math.Inf(1))}, y)
		}
		if e.err != nil {
			return nil, e.err
		}
		return y, nil
	}
}

// dynEmitter emits a chain of nodes, keeping the first error.
type dynEmitter struct {
	c   *opCall
	err error
}

func (e *dynEmitter) op(op canon.Op, in ...*tensorVal) *tensorVal {
	if e.err != nil {
		return nil
	}
	for _, t := range in {
		if t == nil {
			return nil
		}
	}
	v, err := e.c.b().emit1(e.c.scope, op, in...)
	if err != nil {
		e.err = err
		return nil
	}
	return v
}

// smallScale is PyTorch's SMALL_SCALE_THRESHOLD (6.1e-5f).
const smallScale = float32(6.1e-5)

// chooseQParams emits ChooseQuantizationParams over x for [0, qmax]:
// the float32 multiplier float(1/s), the zero point as float32 and as a
// uint8 scalar.
func (e *dynEmitter) chooseQParams(x *tensorVal, qmax float64) (inv, zpF, zpU8 *tensorVal) {
	f64 := func(v float64) *tensorVal { return float64Const([]int64{}, []float64{v}) }
	toF64 := func(t *tensorVal) *tensorVal { return e.op(&canon.Cast{To: canon.Float64}, t) }
	bin := func(fn canon.BinaryFn, a, b *tensorVal) *tensorVal { return e.op(&canon.Binary{Fn: fn}, a, b) }
	inf := float32(math.Inf(1))
	lo := e.op(&canon.Clip{Min: -inf, Max: 0}, e.op(&canon.Reduce{Fn: canon.ReduceMin}, x))
	hi := e.op(&canon.Clip{Min: 0, Max: inf}, e.op(&canon.Reduce{Fn: canon.ReduceMax}, x))
	s := bin(canon.Div, bin(canon.Sub, toF64(hi), toF64(lo)), f64(qmax))
	// 0.1 when float(s) is 0 or its reciprocal overflows.
	sf := e.op(&canon.Cast{To: canon.Float32}, s)
	overflow := e.op(&canon.Compare{Fn: canon.CmpGreater}, bin(canon.Div, scalarF32(1), sf), scalarF32(math.MaxFloat32))
	s = e.op(&canon.Where{}, overflow, f64(0.1), s)
	// The small-scale cutoff: s = 6.1e-5f and the range scaled to it.
	small := e.op(&canon.Compare{Fn: canon.CmpLess}, s, f64(float64(smallScale)))
	amp := bin(canon.Div, scalarF32(smallScale), e.op(&canon.Cast{To: canon.Float32}, s))
	lo = e.op(&canon.Where{}, small, bin(canon.Mul, lo, amp), lo)
	hi = e.op(&canon.Where{}, small, bin(canon.Mul, hi, amp), hi)
	s = e.op(&canon.Where{}, small, f64(float64(smallScale)), s)
	// The zero point from whichever end adds the smaller terms.
	a := bin(canon.Div, toF64(lo), s)
	m := bin(canon.Div, toF64(hi), s)
	fromMin := bin(canon.Sub, f64(0), a)
	fromMax := bin(canon.Sub, f64(qmax), m)
	errMin := bin(canon.Sub, f64(0), e.op(&canon.Math{Fn: canon.MathAbs}, a))
	errMax := bin(canon.Sub, f64(qmax), e.op(&canon.Math{Fn: canon.MathAbs}, m))
	z0 := e.op(&canon.Where{}, e.op(&canon.Compare{Fn: canon.CmpLess}, errMin, errMax), fromMin, fromMax)
	zpF = e.op(&canon.Clip{Min: 0, Max: float32(qmax)}, e.op(&canon.Cast{To: canon.Float32}, e.op(&canon.Math{Fn: canon.MathRound}, z0)))
	zpU8 = e.op(&canon.Cast{To: canon.Uint8}, zpF)
	inv = e.op(&canon.Cast{To: canon.Float32}, bin(canon.Div, f64(1), s))
	return inv, zpF, zpU8
}
