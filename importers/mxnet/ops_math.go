package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The math family: MXNet's unary math ops map one to one, except Round
// (MXNet's round rounds halves away from zero, its rint rounds them down;
// canon's Round, like ONNX's, rounds them to even) and the float tests
// (MXNet 1.x has no bool tensors).

// mathFromMXNet maps each MXNet op name to its canonical function.
var mathFromMXNet = map[string]canon.MathFn{
	"abs": canon.MathAbs, "negative": canon.MathNeg, "sign": canon.MathSign, "exp": canon.MathExp, "log": canon.MathLog,
	"sqrt": canon.MathSqrt, "reciprocal": canon.MathReciprocal, "floor": canon.MathFloor, "ceil": canon.MathCeil,
	"erf": canon.MathErf, "sin": canon.MathSin, "cos": canon.MathCos, "tan": canon.MathTan,
	"arcsin": canon.MathAsin, "arccos": canon.MathAcos, "arctan": canon.MathAtan,
	"sinh": canon.MathSinh, "cosh": canon.MathCosh, "arcsinh": canon.MathAsinh, "arccosh": canon.MathAcosh, "arctanh": canon.MathAtanh,
}

func init() {
	entries := map[string]mxOp{}
	for name, fn := range mathFromMXNet {
		entries[name] = mxOp{func(b *builder, c *nodeCtx) ([]string, error) { return single(b, c, &canon.Math{Fn: fn}) }, []string{fn.String()}}
	}
	optable.Add(&converters, entries)
	optable.Add(&lacks, map[string]string{
		"Round": "MXNet's round rounds halves away from zero and its rint rounds them down; neither rounds them to even",
		"IsNaN": "MXNet 1.x has no isnan op (contrib.isnan is a Python helper comparing x with itself) and no bool tensors",
		"IsInf": "MXNet 1.x has no isinf op (contrib.isinf is a Python helper over abs and a comparison) and no bool tensors",
	})
	optable.Add(&unsupported, map[string]string{
		"round": "MXNet's round rounds halves away from zero; canon's Round (ONNX's) rounds them to even",
		"rint":  "MXNet's rint rounds halves down (toward -inf); canon's Round (ONNX's) rounds them to even",
	})
}
