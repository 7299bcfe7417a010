package torchscript

import (
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// Operators applied to quantized tensors. PyTorch dispatches torch.flatten,
// torch.relu, torch.max_pool2d, ... on a quantized tensor to quantized
// kernels; here each is the float operator's own handler applied to the
// integers (cast to float32, which holds them exactly) with the result
// cast back, when the operator commutes with the integers' affine map
// (layout ops, max pooling), or a formula of its own (relu, averages).
type quantizedRule int

const (
	qrLayout      quantizedRule = iota // same integers rearranged or a max of them: scale and zero point kept
	qrRelu                             // max(q, zero_point)
	qrAverage                          // nearbyint(mean(q)), the input's scale and zero point kept, as PyTorch's quantized average pooling computes
	qrShape                            // sizes of the integers: the result is not a tensor
	qrHardsigmoid                      // quantized to scale 1/256, zero point 0, as PyTorch's quantized hardsigmoid is
)

var quantizedRules = map[string]quantizedRule{
	"torch.flatten": qrLayout, "torch.reshape": qrLayout, "torch.view": qrLayout, "torch.contiguous": qrLayout,
	"torch.squeeze": qrLayout, "torch.unsqueeze": qrLayout, "torch.permute": qrLayout, "torch.transpose": qrLayout,
	"torch.max_pool2d": qrLayout, "torch.max_pool1d": qrLayout, "torch.dropout": qrLayout,
	"torch.chunk": qrLayout, "torch.split": qrLayout, "torch.slice": qrLayout, "torch.select": qrLayout,
	"torch.narrow": qrLayout, "torch.expand": qrLayout, "torch.flip": qrLayout, "torch.pixel_shuffle": qrLayout,
	"torch.channel_shuffle": qrLayout,
	"torch.size":            qrShape, "torch.dim": qrShape, "torch.numel": qrShape,
	"torch.hardsigmoid": qrHardsigmoid, "torch.hardsigmoid_": qrHardsigmoid,
	"torch.relu": qrRelu, "torch.relu_": qrRelu,
	"torch.adaptive_avg_pool2d": qrAverage, "torch.avg_pool2d": qrAverage, "torch.mean": qrAverage,
}

// quantizedOverride gives the entry that applies op name to a quantized
// first argument, when it is one.
func quantizedOverride(name string, orig opEntry, args []value) (opEntry, bool) {
	if len(args) == 0 {
		return opEntry{}, false
	}
	if l, ok := args[0].(*listVal); ok && name == "torch.cat" && len(l.items) > 0 {
		if _, ok := l.items[0].(*quantizedVal); ok {
			return entry(opQuantizedCat(false), "Cast", "Mul", "Sub", "Add", "Round", "Clip", "Concat"), true
		}
	}
	if _, ok := args[0].(*quantizedVal); !ok {
		return opEntry{}, false
	}
	rule, ok := quantizedRules[name]
	if !ok {
		return opEntry{}, false
	}
	kinds := slices.Concat(orig.kinds, []string{"Cast", "Clip", "Sub", "Add", "Mul", "Div", "Round"})
	return entry(func(c *opCall) (value, error) { return applyQuantized(c, orig, rule) }, kinds...), true
}

func applyQuantized(c *opCall, orig opEntry, rule quantizedRule) (value, error) {
	q := c.args[0].(*quantizedVal)
	b := c.b()
	dt := b.info(q.ints).DType
	lo, hi := canon.QuantRange(dt)
	switch rule {
	case qrShape:
		args := slices.Clone(c.args)
		args[0] = q.ints
		return orig.handler(&opCall{in: c.in, name: c.name, scope: c.scope, args: args, kwargs: c.kwargs})
	case qrHardsigmoid:
		return quantizedHardsigmoid(c, q)
	}
	f, err := b.emit1(c.scope, &canon.Cast{To: canon.Float32}, q.ints)
	if err != nil {
		return nil, err
	}
	if rule == qrRelu {
		r, err := b.emit1(c.scope, &canon.Clip{Min: float32(q.zeroPoint), Max: float32(hi)}, f)
		if err != nil {
			return nil, err
		}
		ints, err := b.emit1(c.scope, &canon.Cast{To: dt}, r)
		if err != nil {
			return nil, err
		}
		if c.name == "torch.relu_" {
			q.ints = ints
			return q, nil
		}
		return &quantizedVal{ints: ints, scale: q.scale, zeroPoint: q.zeroPoint}, nil
	}
	if c.name == "torch.mean" {
		if err := trailingMeanDims(c, q); err != nil {
			return nil, err
		}
	}
	if rule == qrAverage && c.name == "torch.avg_pool2d" && len(c.args) > 3 {
		if pads, ok := c.args[3].(*listVal); ok {
			for _, p := range pads.items {
				if n, _ := toInt(p); n != 0 {
					return nil, c.errf("on a quantized tensor, only unpadded average pooling is read (PyTorch's quantized kernel counts padding its own way)")
				}
			}
		}
	}
	args := slices.Clone(c.args)
	args[0] = f
	inner := &opCall{in: c.in, name: c.name, scope: c.scope, args: args, kwargs: c.kwargs}
	v, err := orig.handler(inner)
	if err != nil {
		return nil, err
	}
	if rule == qrLayout {
		return requantizedItems(c, v, q, dt)
	}
	t, ok := v.(*tensorVal)
	if !ok {
		return nil, c.errf("on a quantized tensor, only the single-tensor form is read (got %s)", typeName(v))
	}
	if rule == qrAverage {
		if t, err = b.emit1(c.scope, &canon.Math{Fn: canon.MathRound}, t); err != nil {
			return nil, err
		}
		if t, err = b.emit1(c.scope, &canon.Clip{Min: float32(lo), Max: float32(hi)}, t); err != nil {
			return nil, err
		}
	}
	ints, err := b.emit1(c.scope, &canon.Cast{To: dt}, t)
	if err != nil {
		return nil, err
	}
	return &quantizedVal{ints: ints, scale: q.scale, zeroPoint: q.zeroPoint}, nil
}

// trailingMeanDims accepts torch.mean of a quantized tensor over its last
// dimensions, which PyTorch computes as nearbyint(sum/n) of the integers;
// over other dimensions it dequantizes and averages in float, an order of
// sums not reproduced here.
func trailingMeanDims(c *opCall, q *quantizedVal) error {
	rank, err := c.rankOf(q.ints, "the input")
	if err != nil {
		return err
	}
	var dims []value
	if len(c.args) > 1 {
		if l, ok := c.args[1].(*listVal); ok {
			dims = l.items
		}
	}
	if len(dims) == 0 {
		return c.errf("on a quantized tensor, only a mean over the last dimensions (given as a list) is read")
	}
	seen := map[int64]bool{}
	for _, d := range dims {
		n, ok := toInt(d)
		if !ok {
			return c.errf("dimension %s is not an int known at import", typeName(d))
		}
		if n < 0 {
			n += int64(rank)
		}
		seen[n] = true
	}
	for k := int64(rank) - int64(len(dims)); k < int64(rank); k++ {
		if !seen[k] {
			return c.errf("on a quantized tensor, only a mean over the last dimensions is read (PyTorch averages other dimensions in float, in an order of sums not reproduced here)")
		}
	}
	return nil
}

// requantizedItems casts a layout op's result (a tensor, or a list or
// tuple of them, as chunk and split give) back to the integer type with
// q's scale and zero point.
func requantizedItems(c *opCall, v value, q *quantizedVal, dt canon.DType) (value, error) {
	switch x := v.(type) {
	case *tensorVal:
		ints, err := c.b().emit1(c.scope, &canon.Cast{To: dt}, x)
		if err != nil {
			return nil, err
		}
		return &quantizedVal{ints: ints, scale: q.scale, zeroPoint: q.zeroPoint}, nil
	case *listVal, *tupleVal:
		var items []value
		if l, ok := x.(*listVal); ok {
			items = l.items
		} else {
			items = x.(*tupleVal).items
		}
		out := make([]value, len(items))
		for i, it := range items {
			r, err := requantizedItems(c, it, q, dt)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		if _, ok := x.(*listVal); ok {
			return &listVal{items: out}, nil
		}
		return &tupleVal{items: out}, nil
	}
	return nil, c.errf("on a quantized tensor, gives a %s, which is not read", typeName(v))
}

// quantizedHardsigmoid is PyTorch's quantized hardsigmoid: the input
// dequantized, min(max(x + 3, 0), 6)/6 in float32, quantized to quint8
// with the fixed scale 1/256 and zero point 0.
func quantizedHardsigmoid(c *opCall, q *quantizedVal) (value, error) {
	if c.b().info(q.ints).DType != canon.Uint8 {
		return nil, c.errf("only a quint8 input is read")
	}
	if len(c.args) > 1 || len(c.kwargs) > 0 {
		return nil, c.errf("takes only the input")
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
	if t, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Div}, t, scalarF32(6)); err != nil {
		return nil, err
	}
	r, err := quantizeTo(c, t, 1.0/256, 0, false)
	if err != nil {
		return nil, err
	}
	if c.name == "torch.hardsigmoid_" {
		*q = *r
		return q, nil
	}
	return r, nil
}

// quantizeParams reads quantize_per_tensor's scale and zero point (bound
// at 1 and 2).
func quantizeParams(c *opCall) (float64, int64, error) { return qparamsAt(c, 1) }

// qparamsAt reads a scale and a zero point bound at i and i+1: numbers,
// or one-element tensors known at import (the buffers FX-mode
// quantization stores them in).
func qparamsAt(c *opCall, i int) (float64, int64, error) {
	s, err := numberArg(c, i)
	if err != nil {
		return 0, 0, err
	}
	z, err := numberArg(c, i+1)
	if err != nil {
		return 0, 0, err
	}
	if z != math.Trunc(z) {
		return 0, 0, c.errf("argument %s is %g, not an integer", c.params[i+1], z)
	}
	return s, int64(z), nil
}

// numberArg is the number bound at i, given as a number or as a
// one-element tensor known at import.
func numberArg(c *opCall, i int) (float64, error) {
	t, ok := c.bound[i].(*tensorVal)
	if !ok {
		return c.float(i)
	}
	k := t.konst
	if t.ref != nil {
		var err error
		if k, err = t.ref.load(c.b().a, t.path); err != nil {
			return 0, err
		}
	}
	if k == nil || k.NumElements() != 1 {
		return 0, c.errf("argument %s must be a number or a one-element tensor known at import", c.params[i])
	}
	v, err := k.Float64s()
	if err != nil {
		return 0, c.errf("argument %s: %v", c.params[i], err)
	}
	return v[0], nil
}
