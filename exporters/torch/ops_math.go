package torchexport

import (
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The math family: one torch function per canonical function. torch.round
// rounds half to even, as ONNX Round does. PyTorch 1.13 has no float16 CPU
// kernel for most of them, so float16 inputs are computed in float32 and
// rounded back, which is what the interpreter does too.

// mathTorch is each function's torch name.
var mathTorch = map[canon.MathFn]string{
	canon.MathAbs: "torch.abs", canon.MathNeg: "torch.neg", canon.MathSign: "torch.sign", canon.MathExp: "torch.exp",
	canon.MathLog: "torch.log", canon.MathSqrt: "torch.sqrt", canon.MathReciprocal: "torch.reciprocal",
	canon.MathFloor: "torch.floor", canon.MathCeil: "torch.ceil", canon.MathRound: "torch.round", canon.MathErf: "torch.erf",
	canon.MathSin: "torch.sin", canon.MathCos: "torch.cos", canon.MathTan: "torch.tan", canon.MathAsin: "torch.asin",
	canon.MathAcos: "torch.acos", canon.MathAtan: "torch.atan", canon.MathSinh: "torch.sinh", canon.MathCosh: "torch.cosh",
	canon.MathAsinh: "torch.asinh", canon.MathAcosh: "torch.acosh", canon.MathAtanh: "torch.atanh",
}

// halfOnCPU reports whether PyTorch 1.13 computes fn on float16 CPU
// tensors ("not implemented for 'Half'" otherwise).
func halfOnCPU(fn canon.MathFn) bool {
	return fn == canon.MathAbs || fn == canon.MathNeg || fn == canon.MathSign || fn == canon.MathReciprocal
}

func init() {
	entries := map[string]opWriter{
		"IsNaN": {write: func(gen *generator, _ *canon.Node) error { return gen.call("torch.isnan(%s)", 0) },
			floatOnly: "IsNaN", detail: "torch.isnan"},
		"IsInf": {write: writeIsInf, floatOnly: "IsInf",
			detail: "torch.isinf, torch.isposinf or torch.isneginf (torch.zeros_like when neither sign is detected)"},
	}
	for _, fn := range canon.MathFns() {
		w := opWriter{write: writeMath, detail: mathTorch[fn]}
		if fn.Integers() {
			w.detail += " (integers wrap as in ONNX)"
		} else {
			w.floatOnly = strings.TrimPrefix(mathTorch[fn], "torch.")
		}
		if !halfOnCPU(fn) {
			w.detail += "; float16 computed in float32"
		}
		entries[fn.String()] = w
	}
	optable.Add(&opWriters, entries)
}

func writeMath(gen *generator, n *canon.Node) error {
	fn := n.Op.(*canon.Math).Fn
	f := mathTorch[fn]
	if dt, ok := gen.inDType(0); ok && dt == canon.Float16 && !halfOnCPU(fn) {
		return gen.call(f+"(%s.float()).half()", 0)
	}
	return gen.call(f+"(%s)", 0)
}

func writeIsInf(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.IsInf)
	switch {
	case op.DetectPositive && op.DetectNegative:
		return gen.call("torch.isinf(%s)", 0)
	case op.DetectPositive:
		return gen.call("torch.isposinf(%s)", 0)
	case op.DetectNegative:
		return gen.call("torch.isneginf(%s)", 0)
	}
	return gen.call("torch.zeros_like(%s, dtype=torch.bool)", 0)
}
