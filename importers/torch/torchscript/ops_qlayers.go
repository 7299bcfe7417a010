package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Quantized convolutions and linear layers (quantized::conv2d, conv1d,
// linear and their _relu forms) on a quint8 input with a packed qint8
// weight. PyTorch 1.13's x86 engine (onednn, through ideep) computes, with
// the reciprocal scales isx = 1/sx, isw = 1/sw[c], isy = 1/sy in float32:
//
//	acc = Σ (x - zx)·w                      (int32)
//	v   = (float(acc) + bias·(isx·isw)) · (isy / (isx·isw))
//	y   = clamp(nearbyint(v + zy), lo, 255) (lo = zy with the ReLU)
//
// every product and sum rounded to float32. That is ConvInteger or
// MatMulInteger followed by float32 Cast, Add, Mul, Add, Round, Clip and
// a Cast to uint8. ONNX's QLinearConv adds an int32-rounded bias and
// rounds once, which differs from this in the last step, so it is not
// used. The float bias term and multiplier are folded at import in the
// same float32 order.
func init() {
	kinds := []string{"ConvInteger", "Cast", "Add", "Mul", "Round", "Clip"}
	lin := []string{"MatMulInteger", "Cast", "Add", "Mul", "Round", "Clip"}
	optable.Add(&opTable, map[string]opEntry{
		"ops.quantized.conv2d":      entry(opQuantizedConv(2, false), kinds...),
		"ops.quantized.conv2d_relu": entry(opQuantizedConv(2, true), kinds...),
		"ops.quantized.conv1d":      entry(opQuantizedConv(1, false), kinds...),
		"ops.quantized.conv1d_relu": entry(opQuantizedConv(1, true), kinds...),
		"ops.quantized.linear":      entry(opQuantizedLinear(false), lin...),
		"ops.quantized.linear_relu": entry(opQuantizedLinear(true), lin...),
	})
}

// quantizedLayerArgs binds (qx, packed_weight, output_scale, output_zero_point).
func quantizedLayerArgs(c *opCall) (*quantizedVal, *packedParams, float32, int64, error) {
	if err := c.bind("qx", "packed_weight", "output_scale", "output_zero_point"); err != nil {
		return nil, nil, 0, 0, err
	}
	q, ok := c.bound[0].(*quantizedVal)
	if !ok {
		return nil, nil, 0, 0, c.errf("argument qx must be a quantized tensor, got %s", typeName(c.bound[0]))
	}
	p, ok := c.bound[1].(*packedParams)
	if !ok {
		return nil, nil, 0, 0, c.errf("argument packed_weight must be packed parameters (from the archive), got %s", typeName(c.bound[1]))
	}
	sy, zy, err := qparamsAt(c, 2)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	if c.b().info(q.ints).DType != canon.Uint8 {
		return nil, nil, 0, 0, c.errf("input is %s; PyTorch's quantized layers take quint8 inputs", c.b().info(q.ints).DType)
	}
	if !(sy > 0) || math.IsInf(sy, 0) || zy < 0 || zy > 255 {
		return nil, nil, 0, 0, c.errf("output scale %g and zero point %d must be positive finite and within [0, 255]", sy, zy)
	}
	return q, p, float32(sy), zy, nil
}

// requantConsts are the per-channel float32 constants of the formula above.
type requantConsts struct {
	bias []float32 // bias·(isx·isw), nil without a bias
	mult []float32 // isy / (isx·isw)
}

func requantFor(c *opCall, q *quantizedVal, w *qweight, bias []float64, sy float32, outCh int) (*requantConsts, error) {
	isx, isy := 1/q.scale, 1/sy
	r := &requantConsts{mult: make([]float32, outCh)}
	if bias != nil {
		if len(bias) != outCh {
			return nil, c.errf("bias has %d entries for %d output channels", len(bias), outCh)
		}
		r.bias = make([]float32, outCh)
	}
	for o := 0; o < outCh; o++ {
		s := w.scales[0]
		if len(w.scales) > 1 {
			s = w.scales[o]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, c.errf("weight scale %g (channel %d) must be positive and finite", s, o)
		}
		isw := 1 / float32(s)
		bs := isx * isw
		r.mult[o] = isy / bs
		if bias != nil {
			r.bias[o] = float32(bias[o]) * bs
		}
	}
	return r, nil
}

// loadPacked reads the packed weight (symmetric qint8) and bias.
func loadPacked(c *opCall, p *packedParams) (*qweight, []float64, error) {
	w, err := p.weight.load(c.b().a, p.path+".weight")
	if err != nil {
		return nil, nil, err
	}
	if w.ints.DType != canon.Int8 {
		return nil, nil, c.errf("packed weight %s is %s; PyTorch's x86 engine packs qint8 weights", p.path, w.ints.DType)
	}
	if w.perChannelAxis() != 0 {
		return nil, nil, c.errf("packed weight %s is quantized along axis %d; only per-tensor or per-output-channel (axis 0) weights are read", p.path, w.axis)
	}
	for _, z := range w.zps {
		if z != 0 {
			return nil, nil, c.errf("packed weight %s has zero point %d; PyTorch's x86 engine (onednn) computes only symmetric (zero point 0) weights, and the arithmetic of others is not known here", p.path, z)
		}
	}
	if p.bias == nil {
		return w, nil, nil
	}
	bt, err := p.bias.load(c.b().a, p.path+".bias")
	if err != nil {
		return nil, nil, err
	}
	if bt.DType != canon.Float32 {
		return nil, nil, c.errf("packed bias %s is %s, not float32", p.path, bt.DType)
	}
	b, err := bt.Float64s()
	return w, b, err
}

func (w *qweight) perChannelAxis() int64 {
	if len(w.scales) == 1 {
		return 0
	}
	return w.axis
}

// emitRequantize turns the int32 accumulator into quint8 by the formula
// above; constants have shape cshape (one entry per output channel,
// broadcast along the channel axis).
func emitRequantize(c *opCall, acc *tensorVal, r *requantConsts, cshape []int64, zy int64, relu bool) (*quantizedVal, float32, error) {
	b := c.b()
	v, err := b.emit1(c.scope, &canon.Cast{To: canon.Float32}, acc)
	if err != nil {
		return nil, 0, err
	}
	k := func(x []float32) *tensorVal { return &tensorVal{konst: canon.NewFloat32Tensor("", cshape, x)} }
	if r.bias != nil {
		if v, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, v, k(r.bias)); err != nil {
			return nil, 0, err
		}
	}
	if v, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, v, k(r.mult)); err != nil {
		return nil, 0, err
	}
	if v, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, v, scalarF32(float32(zy))); err != nil {
		return nil, 0, err
	}
	if v, err = b.emit1(c.scope, &canon.Math{Fn: canon.MathRound}, v); err != nil {
		return nil, 0, err
	}
	lo := float32(0)
	if relu {
		lo = float32(zy)
	}
	if v, err = b.emit1(c.scope, &canon.Clip{Min: lo, Max: 255}, v); err != nil {
		return nil, 0, err
	}
	ints, err := b.emit1(c.scope, &canon.Cast{To: canon.Uint8}, v)
	return &quantizedVal{ints: ints}, 0, err
}

func uint8Scalar(v int64) *tensorVal {
	return &tensorVal{konst: &canon.Tensor{DType: canon.Uint8, Shape: []int64{}, Data: []byte{byte(v)}}}
}

func opQuantizedConv(dims int, relu bool) opHandler {
	return func(c *opCall) (value, error) {
		q, p, sy, zy, err := quantizedLayerArgs(c)
		if err != nil {
			return nil, err
		}
		if !p.conv {
			return nil, c.errf("packed parameters %s are a linear layer's, not a convolution's", p.path)
		}
		if p.transposed {
			return nil, c.errf("packed parameters %s are a transposed convolution's (quantized::conv_transpose is not read)", p.path)
		}
		if err := p.readConfig(c.b().a); err != nil {
			return nil, c.errf("%v", err)
		}
		w, bias, err := loadPacked(c, p)
		if err != nil {
			return nil, err
		}
		if len(w.ints.Shape) != dims+2 || len(p.stride) != dims || len(p.padding) != dims || len(p.dilation) != dims {
			return nil, c.errf("packed weight %s has shape %v and stride %v; a %d-D convolution needs a rank-%d weight", p.path, w.ints.Shape, p.stride, dims, dims+2)
		}
		outCh := int(w.ints.Shape[0])
		if len(w.scales) != 1 && len(w.scales) != outCh {
			return nil, c.errf("packed weight %s has %d scales for %d output channels", p.path, len(w.scales), outCh)
		}
		r, err := requantFor(c, q, w, bias, sy, outCh)
		if err != nil {
			return nil, err
		}
		b := c.b()
		op := &canon.ConvInteger{Strides: p.stride, Dilations: p.dilation, PadsBegin: p.padding, PadsEnd: p.padding, Group: p.groups}
		acc, err := b.emit1(c.scope, op, q.ints, &tensorVal{konst: w.ints}, uint8Scalar(q.zeroPoint))
		if err != nil {
			return nil, err
		}
		cshape := []int64{int64(outCh)}
		for i := 0; i < dims; i++ {
			cshape = append(cshape, 1)
		}
		out, _, err := emitRequantize(c, acc, r, cshape, zy, relu)
		if err != nil {
			return nil, err
		}
		out.scale, out.zeroPoint = sy, zy
		return out, nil
	}
}

func opQuantizedLinear(relu bool) opHandler {
	return func(c *opCall) (value, error) {
		q, p, sy, zy, err := quantizedLayerArgs(c)
		if err != nil {
			return nil, err
		}
		if p.conv {
			return nil, c.errf("packed parameters %s are a convolution's, not a linear layer's", p.path)
		}
		w, bias, err := loadPacked(c, p)
		if err != nil {
			return nil, err
		}
		if len(w.ints.Shape) != 2 {
			return nil, c.errf("packed weight %s has shape %v, not (out_features, in_features)", p.path, w.ints.Shape)
		}
		outCh, inCh := w.ints.Shape[0], w.ints.Shape[1]
		r, err := requantFor(c, q, w, bias, sy, int(outCh))
		if err != nil {
			return nil, err
		}
		// MatMulInteger's B is (in_features, out_features): the weight transposed.
		wt := &canon.Tensor{DType: canon.Int8, Shape: []int64{inCh, outCh}, Data: make([]byte, inCh*outCh)}
		for o := int64(0); o < outCh; o++ {
			for i := int64(0); i < inCh; i++ {
				wt.Data[i*outCh+o] = w.ints.Data[o*inCh+i]
			}
		}
		acc, err := c.b().emit1(c.scope, &canon.MatMulInteger{}, q.ints, &tensorVal{konst: wt}, uint8Scalar(q.zeroPoint))
		if err != nil {
			return nil, err
		}
		out, _, err := emitRequantize(c, acc, r, []int64{outCh}, zy, relu)
		if err != nil {
			return nil, err
		}
		out.scale, out.zeroPoint = sy, zy
		return out, nil
	}
}
