package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The nn activation layers without a single canonical op of PyTorch's
// exact form: PReLU, GLU, LogSigmoid, RReLU at inference, channel shuffle,
// Bilinear, and the dropouts that are the identity at inference (with the
// aten forms decomposed programs record for some of them).

func init() {
	t := map[string]opEntry{
		"torch.prelu":                  entry(opPrelu, "PRelu", "Reshape"),
		"torch.glu":                    entry(opGlu, "Split", "Sigmoid", "Mul"),
		"torch.log_sigmoid":            entry(opLogSigmoid, kindsWith(layerLog1pKinds, "Abs", "Neg", "Exp", "Clip")...),
		"torch.log_sigmoid_forward":    entry(withBuffer(opLogSigmoid), kindsWith(layerLog1pKinds, "Abs", "Neg", "Exp", "Clip")...),
		"torch.rrelu_with_noise":       entry(opRreluWithNoise, "LeakyRelu", "RandomUniformLike", "GreaterOrEqual", "Mul", "Where"),
		"torch.rrelu":                  entry(opRrelu, "LeakyRelu", "RandomUniformLike", "GreaterOrEqual", "Mul", "Where"),
		"torch.channel_shuffle":        entry(opChannelShuffle, "Reshape", "Transpose"),
		"torch.native_channel_shuffle": entry(opChannelShuffle, "Reshape", "Transpose"),
		"torch.bilinear":               entry(opBilinear, "Einsum", "Add"),
		"torch.feature_alpha_dropout":  entry(opDropout),
	}
	for _, name := range []string{"rrelu", "feature_alpha_dropout"} {
		t["torch."+name+"_"] = opEntry{handler: inPlace(t["torch."+name].handler), kinds: t["torch."+name].kinds}
	}
	optable.Add(&opTable, t)
}

// opPrelu maps aten::prelu(self, weight): one slope for every element, or
// one per channel (axis 1), which is reshaped to (C, 1, ...) to broadcast.
func opPrelu(c *opCall) (value, error) {
	x, err := c.bindInput("input", "weight")
	if err != nil {
		return nil, err
	}
	w, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	ws, err := c.shapeOf(w, "the weight")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	n := int64(1)
	for _, d := range ws {
		n *= d
	}
	e := layerEmit{c}
	if n == 1 {
		if len(ws) != 1 {
			if w, err = e.op(&canon.Reshape{Shape: []int64{1}}, w); err != nil {
				return nil, err
			}
		}
		return e.op(&canon.PRelu{}, x, w)
	}
	if r < 2 {
		return nil, c.errf("%d slopes for a rank-%d input: per-channel slopes need a channel axis (axis 1)", n, r)
	}
	if xs, ok := c.b().info(x).StaticShape(); ok && xs[1] != n {
		return nil, c.errf("%d slopes for %d channels", n, xs[1])
	}
	shape := append([]int64{n}, ones64(r-2)...)
	slope, err := e.op(&canon.Reshape{Shape: shape}, w)
	if err != nil {
		return nil, err
	}
	return e.op(&canon.PRelu{}, x, slope)
}

// opGlu maps aten::glu(self, dim=-1): the first half times the sigmoid of
// the second.
func opGlu(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim=-1")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, len(shape)); err != nil {
		return nil, err
	}
	if shape[d]%2 != 0 {
		return nil, c.errf("dimension %d has odd size %d; GLU halves it", d, shape[d])
	}
	h := shape[d] / 2
	halves, err := c.b().emit(c.scope, &canon.Split{Axis: d, Sizes: []int64{h, h}}, []*tensorVal{x}, 2)
	if err != nil {
		return nil, err
	}
	e := layerEmit{c}
	gate, err := e.op(&canon.Unary{Fn: canon.Sigmoid}, halves[1])
	if err != nil {
		return nil, err
	}
	return e.bin(canon.Mul, halves[0], gate)
}

// opLogSigmoid maps aten::log_sigmoid as PyTorch computes it, stable for
// large |x|: min(x, 0) − log1p(exp(−|x|)).
func opLogSigmoid(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	e := layerEmit{c}
	a, err := e.math(canon.MathAbs, x)
	if err != nil {
		return nil, err
	}
	na, err := e.math(canon.MathNeg, a)
	if err != nil {
		return nil, err
	}
	z, err := e.math(canon.MathExp, na)
	if err != nil {
		return nil, err
	}
	l, err := e.log1p(z)
	if err != nil {
		return nil, err
	}
	clip := canon.NewClip()
	clip.Max = 0
	m, err := e.op(clip, x)
	if err != nil {
		return nil, err
	}
	return e.bin(canon.Sub, m, l)
}

// opRrelu maps aten::rrelu(self, lower, upper, training=False, generator):
// at inference the slope is the mean of the bounds (random in training).
func opRrelu(c *opCall) (value, error) {
	x, err := c.bindInput("input", "lower=0.125", "upper=0.3333333333333333", "training=False", "generator=None")
	if err != nil {
		return nil, err
	}
	lo, err := c.float(1)
	if err != nil {
		return nil, err
	}
	hi, err := c.float(2)
	if err != nil {
		return nil, err
	}
	training, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	if training && lo != hi {
		return rreluTraining(c, x, lo, hi)
	}
	return c.b().emit1(c.scope, &canon.LeakyRelu{Alpha: float32((lo + hi) / 2)}, x)
}

// opRreluWithNoise maps aten::rrelu_with_noise(self, noise, lower, upper,
// training=False, generator), the form decomposed programs record.
func opRreluWithNoise(c *opCall) (value, error) {
	if len(c.args) < 2 {
		return nil, c.errf("needs the input and the noise tensor")
	}
	c.args = append(c.args[:1:1], c.args[2:]...)
	delete(c.kwargs, "noise")
	return opRrelu(c)
}

// withBuffer wraps a handler whose aten form also returns a buffer kept
// for the backward pass (log_sigmoid_forward): the buffer is not computed,
// and a program that reads it stops there.
func withBuffer(h opHandler) opHandler {
	return func(c *opCall) (value, error) {
		y, err := h(c)
		if err != nil {
			return nil, err
		}
		return &tupleVal{items: []value{y, noneVal{}}}, nil
	}
}

// opChannelShuffle maps aten::channel_shuffle(self, groups): channels
// viewed as (groups, C/groups), transposed and flattened back.
func opChannelShuffle(c *opCall) (value, error) {
	x, err := c.bindInput("input", "groups")
	if err != nil {
		return nil, err
	}
	g, err := c.int(1)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) < 3 {
		return nil, c.errf("input has rank %d; channel_shuffle needs (N, C, *) with at least one spatial axis", len(shape))
	}
	if g <= 0 || shape[1]%g != 0 {
		return nil, c.errf("groups %d does not divide the %d channels", g, shape[1])
	}
	rest := int64(1)
	for _, d := range shape[2:] {
		rest *= d
	}
	e := layerEmit{c}
	v, err := e.op(&canon.Reshape{Shape: []int64{shape[0], g, shape[1] / g, rest}, AllowZero: true}, x)
	if err != nil {
		return nil, err
	}
	t, err := e.op(&canon.Transpose{Perm: []int64{0, 2, 1, 3}}, v)
	if err != nil {
		return nil, err
	}
	return e.op(&canon.Reshape{Shape: clone(shape), AllowZero: true}, t)
}

// opBilinear maps aten::bilinear(input1, input2, weight, bias):
// y[..., o] = Σ x1[..., i]·W[o, i, j]·x2[..., j] + b[o].
func opBilinear(c *opCall) (value, error) {
	x1, err := c.bindInput("input1", "input2", "weight", "bias=None")
	if err != nil {
		return nil, err
	}
	x2, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	w, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	bias, err := c.optTensor(3)
	if err != nil {
		return nil, err
	}
	eq, err := canon.NormalizeEinsum("...i,oij,...j->...o")
	if err != nil {
		return nil, c.errf("%v", err)
	}
	e := layerEmit{c}
	y, err := e.op(&canon.Einsum{Equation: eq}, x1, w, x2)
	if err != nil || bias == nil {
		return y, err
	}
	return e.bin(canon.Add, y, bias)
}
