package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The activation family: torch.log_softmax, celu, mish, threshold,
// hardshrink, softshrink and einsum. PyTorch has no hardmax operator
// (it is written as argmax and a one-hot scatter).

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.log_softmax": entry(opLogSoftmax, "LogSoftmax", "Cast"),
		"torch.celu":        entry(opCelu, "Celu"),
		"torch.mish":        entry(func(c *opCall) (value, error) { return unaryAct(c, &canon.Mish{}) }, "Mish"),
		"torch.threshold":   entry(opThreshold, "LessOrEqual", "Where"),
		"torch.hardshrink":  entry(opShrink(false), "Shrink"),
		"torch.softshrink":  entry(opShrink(true), "Shrink"),
		"torch.einsum":      entry(opEinsum, "Einsum"),
	})
	for _, name := range []string{"celu", "mish", "threshold"} {
		e := opTable["torch."+name]
		opTable["torch."+name+"_"] = opEntry{handler: inPlace(e.handler), kinds: e.kinds}
	}
	optable.Add(&opLacks, map[string]string{
		"Hardmax": "PyTorch has no hardmax operator; traced code spells it as argmax and a scatter, which are not mapped",
	})
}

func unaryAct(c *opCall, op canon.Op) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, op, x)
}

func opLogSoftmax(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "dtype=None")
	if err != nil {
		return nil, err
	}
	if x, err = reduceDType(c, x, 2); err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if r, err := c.rankOf(x, "the input"); err == nil {
		if d, err = c.axis(d, r); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.LogSoftmax{Axis: d}, x)
}

func opCelu(c *opCall) (value, error) {
	x, err := c.bindInput("input", "alpha=1.0")
	if err != nil {
		return nil, err
	}
	a, err := c.float(1)
	if err != nil {
		return nil, err
	}
	if a == 0 {
		return nil, c.errf("alpha is 0; CELU divides by it")
	}
	return c.b().emit1(c.scope, &canon.Celu{Alpha: float32(a)}, x)
}

// opThreshold maps torch.threshold(x, t, v), v where x <= t and x
// elsewhere: ThresholdedRelu when v is 0, otherwise that comparison and a
// Where (a NaN x stays NaN, as in PyTorch).
func opThreshold(c *opCall) (value, error) {
	x, err := c.bindInput("input", "threshold", "value")
	if err != nil {
		return nil, err
	}
	t, err := c.float(1)
	if err != nil {
		return nil, err
	}
	v, err := c.float(2)
	if err != nil {
		return nil, err
	}
	// Also for value 0: ThresholdedRelu would map NaN to 0, where PyTorch
	// keeps it (NaN <= t is false).
	e := layerEmit{c}
	dt := c.b().info(x).DType
	if dt == canon.Undefined {
		dt = canon.Float32
	}
	tk, err := scalarAs(t, dt)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	vk, err := scalarAs(v, dt)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	below, err := e.cmp(canon.CmpLessOrEqual, x, &tensorVal{konst: tk})
	if err != nil {
		return nil, err
	}
	return e.where(below, &tensorVal{konst: vk}, x)
}

// opShrink maps hardshrink (bias 0) and softshrink (bias lambd).
func opShrink(soft bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "lambd=0.5")
		if err != nil {
			return nil, err
		}
		l, err := c.float(1)
		if err != nil {
			return nil, err
		}
		op := &canon.Shrink{Lambd: float32(l)}
		if soft {
			op.Bias = op.Lambd
		}
		return c.b().emit1(c.scope, op, x)
	}
}

// opEinsum maps torch.einsum(equation, [operands], path=None). PyTorch's
// implicit output follows NumPy's rule, as ONNX's does.
func opEinsum(c *opCall) (value, error) {
	if err := c.bind("equation", "tensors", "path=None"); err != nil {
		return nil, err
	}
	eq, ok := c.bound[0].(string)
	if !ok {
		return nil, c.errf("equation must be a string, got %s", typeName(c.bound[0]))
	}
	norm, err := canon.NormalizeEinsum(eq)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	var items []value
	switch l := c.bound[1].(type) {
	case *listVal:
		items = l.items
	case *tupleVal:
		items = l.items
	default:
		return nil, c.errf("tensors must be a list")
	}
	if len(items) == 0 {
		return nil, c.errf("einsum needs at least one operand")
	}
	ins := make([]*tensorVal, len(items))
	for i, it := range items {
		t, ok := it.(*tensorVal)
		if !ok {
			return nil, c.errf("operand %d is a %s, not a Tensor", i, typeName(it))
		}
		ins[i] = t
	}
	return c.b().emit1(c.scope, &canon.Einsum{Equation: norm}, ins...)
}
