package torchscript

import "github.com/modelbridge/modelbridge/canon"

// opSoftplus is aten::softplus(self, beta=1, threshold=20), which returns x
// itself where beta*x > threshold. With beta 1 and a threshold of 20 or
// more that shortcut changes nothing in float32 (log1p(exp(-20)) is far
// below x's last bit), so it is canonical Softplus; other forms are
// PyTorch's formula, written out: where(x·beta > threshold, x,
// log1p(exp(x·beta))/beta), in float32 as PyTorch computes it.
func opSoftplus(c *opCall) (value, error) {
	x, err := c.bindInput("input", "beta=1", "threshold=20")
	if err != nil {
		return nil, err
	}
	beta, err := c.float(1)
	if err != nil {
		return nil, err
	}
	threshold, err := c.float(2)
	if err != nil {
		return nil, err
	}
	if beta == 1 && threshold >= 20 {
		return c.b().emit1(c.scope, &canon.Unary{Fn: canon.Softplus}, x)
	}
	if beta == 0 {
		return nil, c.errf("beta is 0; softplus divides by it")
	}
	e := layerEmit{c}
	bx, err := e.bin(canon.Mul, x, f32(beta))
	if err != nil {
		return nil, err
	}
	ex, err := e.math(canon.MathExp, bx)
	if err != nil {
		return nil, err
	}
	l, err := e.log1p(ex)
	if err != nil {
		return nil, err
	}
	soft, err := e.bin(canon.Div, l, f32(beta))
	if err != nil {
		return nil, err
	}
	above, err := e.cmp(canon.CmpGreater, bx, f32(threshold))
	if err != nil {
		return nil, err
	}
	return e.where(above, x, soft)
}

// softplusKinds are the kinds opSoftplus emits.
var softplusKinds = kindsWith(layerLog1pKinds, "Softplus", "Exp")

// opElu is aten::elu(self, alpha=1, scale=1, input_scale=1):
// scale*x for x > 0, scale*alpha*(exp(input_scale*x)-1) otherwise. A scale
// other than 1 is exactly canonical Selu(alpha, gamma=scale).
func opElu(c *opCall) (value, error) {
	x, err := c.bindInput("input", "alpha=1", "scale=1", "input_scale=1")
	if err != nil {
		return nil, err
	}
	var p [3]float64
	for i := range p {
		if p[i], err = c.float(1 + i); err != nil {
			return nil, err
		}
	}
	alpha, scale, inScale := p[0], p[1], p[2]
	if inScale != 1 {
		return nil, c.errf("elu with input_scale=%g is not supported (only 1)", inScale)
	}
	if scale == 1 {
		return c.b().emit1(c.scope, &canon.Elu{Alpha: float32(alpha)}, x)
	}
	return c.b().emit1(c.scope, &canon.Selu{Alpha: float32(alpha), Gamma: float32(scale)}, x)
}

// opSelu is aten::selu, whose fixed constants are ONNX's defaults in float32.
func opSelu(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Selu{Alpha: canon.SeluAlpha, Gamma: canon.SeluGamma}, x)
}

// opGelu is aten::gelu(self, *, approximate="none"): nn.GELU and F.gelu
// both serialize to torch.gelu, with approximate="tanh" only when set.
func opGelu(c *opCall) (value, error) {
	x, err := c.bindInput("input", "approximate=None")
	if err != nil {
		return nil, err
	}
	approx := canon.GeluExact
	if !c.isNone(1) {
		s, ok := c.bound[1].(string)
		switch {
		case !ok:
			return nil, c.errf("approximate must be a string, got %s", typeName(c.bound[1]))
		case s == "tanh":
			approx = canon.GeluTanh
		case s != "none":
			return nil, c.errf("approximate=%q is not a GELU approximation torch knows (\"none\" or \"tanh\")", s)
		}
	}
	return c.b().emit1(c.scope, &canon.Gelu{Approximate: approx}, x)
}
