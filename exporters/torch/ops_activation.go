package torchexport

import (
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The activation family: LogSoftmax, Hardmax, Celu, Mish, ThresholdedRelu,
// Shrink, Einsum.

func init() {
	act := "this activation"
	optable.Add(&opWriters, map[string]opWriter{
		"LogSoftmax": {write: func(gen *generator, n *canon.Node) error {
			return gen.call("F.log_softmax(%s, dim="+strconv.FormatInt(n.Op.(*canon.LogSoftmax).Axis, 10)+")", 0)
		}, floatOnly: "log-softmax", detail: "F.log_softmax"},
		"Hardmax": {write: func(gen *generator, n *canon.Node) error {
			// torch.argmax returns the first maximal index, as ONNX asks.
			d := strconv.FormatInt(n.Op.(*canon.Hardmax).Axis, 10)
			return gen.call("torch.zeros_like(%[1]s).scatter("+d+", torch.argmax(%[1]s, dim="+d+", keepdim=True), 1.0)", 0)
		}, floatOnly: "hardmax", detail: "torch.zeros_like(x).scatter at torch.argmax"},
		"Celu": {write: func(gen *generator, n *canon.Node) error {
			return gen.call("F.celu(%s, alpha="+pyFloat(n.Op.(*canon.Celu).Alpha)+")", 0)
		}, floatOnly: act, detail: "F.celu"},
		"Mish": {write: func(gen *generator, _ *canon.Node) error { return gen.call("F.mish(%s)", 0) }, floatOnly: act, detail: "F.mish"},
		"ThresholdedRelu": {write: func(gen *generator, n *canon.Node) error {
			// F.threshold(x, t, v) is x where x > t, v elsewhere.
			return gen.call("F.threshold(%s, "+pyFloat(n.Op.(*canon.ThresholdedRelu).Alpha)+", 0.0)", 0)
		}, floatOnly: act, detail: "F.threshold(x, alpha, 0.0)"},
		"Shrink": {write: writeShrink, detail: "F.hardshrink (bias 0) or F.softshrink (bias = lambd) on floats, torch.where otherwise"},
		"Einsum": {write: writeEinsum, detail: "torch.einsum with the explicit equation"},
	})
}

func writeShrink(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Shrink)
	dt := gen.g.Values.Get(n.Inputs[0]).DType
	l, b := pyFloat(op.Lambd), pyFloat(op.Bias)
	if dt.IsFloat() {
		switch {
		case op.Bias == 0:
			return gen.call("F.hardshrink(%s, lambd="+l+")", 0)
		case op.Bias == op.Lambd && op.Lambd >= 0:
			return gen.call("F.softshrink(%s, lambd="+l+")", 0)
		}
		return gen.call("torch.where(%[1]s < -"+l+", %[1]s + "+b+", torch.where(%[1]s > "+l+", %[1]s - "+b+", torch.zeros_like(%[1]s)))", 0)
	}
	// Integers: x±bias in float64 (as ONNX's reference does), truncated
	// back to the dtype.
	return gen.call("torch.where(%[1]s < -"+l+", %[1]s.double() + "+b+", torch.where(%[1]s > "+l+", %[1]s.double() - "+b+", torch.zeros_like(%[1]s, dtype=torch.float64))).to(%[1]s.dtype)", 0)
}

func writeEinsum(gen *generator, n *canon.Node) error {
	args := make([]string, len(n.Inputs))
	idx := make([]int, len(n.Inputs))
	for i := range n.Inputs {
		args[i] = "%s"
		idx[i] = i
	}
	eq := strings.ReplaceAll(pyString(n.Op.(*canon.Einsum).Equation), "%", "%%")
	return gen.call("torch.einsum("+eq+", "+strings.Join(args, ", ")+")", idx...)
}
