package torchexport

import (
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The logic family: torch.logical_*, torch.bitwise_*, the shifts,
// torch.maximum/minimum (which propagate NaN, as ONNX Runtime's Max/Min
// do), sums and means written with +, torch.remainder/fmod and torch.pow.

func init() {
	two := func(f string) opWriter {
		return opWriter{write: func(gen *generator, _ *canon.Node) error { return gen.call(f+"(%s, %s)", 0, 1) }, detail: f}
	}
	one := func(f string) opWriter {
		return opWriter{write: func(gen *generator, _ *canon.Node) error { return gen.call(f+"(%s)", 0) }, detail: f}
	}
	optable.Add(&opWriters, map[string]opWriter{
		"And":        two("torch.logical_and"),
		"Or":         two("torch.logical_or"),
		"Xor":        two("torch.logical_xor"),
		"Not":        one("torch.logical_not"),
		"BitwiseAnd": two("torch.bitwise_and"),
		"BitwiseOr":  two("torch.bitwise_or"),
		"BitwiseXor": two("torch.bitwise_xor"),
		"BitwiseNot": one("torch.bitwise_not"),
		"BitShift": {write: func(gen *generator, n *canon.Node) error {
			f := "torch.bitwise_right_shift"
			if n.Op.(*canon.BitShift).Left {
				f = "torch.bitwise_left_shift"
			}
			return gen.call(f+"(%s, %s)", 0, 1)
		}, detail: "torch.bitwise_left_shift / bitwise_right_shift (torch 1.13 has u8 only of the unsigned types)"},
		"Max":  {write: writeVariadic, detail: "torch.maximum, nested for more than two inputs"},
		"Min":  {write: writeVariadic, detail: "torch.minimum, nested for more than two inputs"},
		"Sum":  {write: writeVariadic, detail: "a + b + ..."},
		"Mean": {write: writeVariadic, floatOnly: "means", detail: "(a + b + ...) / n"},
		"Mod": {write: func(gen *generator, n *canon.Node) error {
			if n.Op.(*canon.Mod).Fmod {
				return gen.call("torch.fmod(%s, %s)", 0, 1)
			}
			return gen.call("torch.remainder(%s, %s)", 0, 1)
		}, detail: "torch.remainder (divisor's sign), torch.fmod (dividend's sign)"},
		"Pow": {write: writePow, detail: "torch.pow, cast back to the base's dtype when torch promotes"},
	})
}

func writeVariadic(gen *generator, n *canon.Node) error {
	fn := n.Op.(*canon.Variadic).Fn
	if len(n.Inputs) == 1 {
		return gen.alias()
	}
	args := make([]string, len(n.Inputs))
	for i := range n.Inputs {
		e, err := gen.in(i)
		if err != nil {
			return err
		}
		args[i] = e
	}
	switch fn {
	case canon.VarMax, canon.VarMin:
		f := "torch.maximum"
		if fn == canon.VarMin {
			f = "torch.minimum"
		}
		acc := args[0]
		for _, a := range args[1:] {
			acc = f + "(" + acc + ", " + a + ")"
		}
		gen.assign(acc)
	case canon.VarSum:
		gen.assign(strings.Join(args, " + "))
	case canon.VarMean:
		gen.assign("(" + strings.Join(args, " + ") + ") / " + strconv.Itoa(len(args)))
	}
	return nil
}

// writePow: ONNX keeps the base's dtype where torch promotes (an integer
// base with a float exponent gives float in torch; ONNX Runtime truncates
// the double result, as .to does).
func writePow(gen *generator, n *canon.Node) error {
	dt, ok1 := gen.inDType(0)
	et, ok2 := gen.inDType(1)
	if ok1 && ok2 && dt != et {
		name, ok := torchDTypes[dt]
		if !ok {
			return gen.fail("PyTorch 1.13 has no dtype %s", dt)
		}
		return gen.call("torch.pow(%s, %s).to("+name+")", 0, 1)
	}
	return gen.call("torch.pow(%s, %s)", 0, 1)
}
