package mxnetexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The math family: MXNet's unary math ops, one per canonical function,
// except Round (MXNet rounds halves away from zero with round and down with
// rint, never to even) and the float tests (no bool tensors).

// mathToMXNet is each canonical function's MXNet op.
var mathToMXNet = map[canon.MathFn]string{
	canon.MathAbs: "abs", canon.MathNeg: "negative", canon.MathSign: "sign", canon.MathExp: "exp", canon.MathLog: "log",
	canon.MathSqrt: "sqrt", canon.MathReciprocal: "reciprocal", canon.MathFloor: "floor", canon.MathCeil: "ceil",
	canon.MathErf: "erf", canon.MathSin: "sin", canon.MathCos: "cos", canon.MathTan: "tan",
	canon.MathAsin: "arcsin", canon.MathAcos: "arccos", canon.MathAtan: "arctan",
	canon.MathSinh: "sinh", canon.MathCosh: "cosh", canon.MathAsinh: "arcsinh", canon.MathAcosh: "arccosh", canon.MathAtanh: "arctanh",
}

func init() {
	entries := map[string]opWriter{}
	for fn, mx := range mathToMXNet {
		entries[fn.String()] = opWriter{mx, func(e *exporter, n *canon.Node) error { return e.single(n, mx, nil, n.Inputs[0]) }}
	}
	optable.Add(&writers, entries)
	optable.Add(&lacks, map[string]string{
		"Round": "MXNet's round rounds halves away from zero and its rint rounds them down; neither rounds them to even",
		"IsNaN": "MXNet 1.x has no isnan op (contrib.isnan is a Python helper comparing x with itself) and no bool tensors",
		"IsInf": "MXNet 1.x has no isinf op (contrib.isinf is a Python helper over abs and a comparison) and no bool tensors",
	})
}
