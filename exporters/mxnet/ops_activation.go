package mxnetexport

import (
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The activation family. MXNet 1.x has log_softmax; Celu and Mish are
// written as their exact definitions in MXNet ops; the other kinds have
// no MXNet 1.x op.

func init() {
	optable.Add(&writers, map[string]opWriter{
		"LogSoftmax": {"log_softmax", func(e *exporter, n *canon.Node) error {
			attrs := map[string]string{"axis": strconv.FormatInt(n.Op.(*canon.LogSoftmax).Axis, 10)}
			return e.single(n, "log_softmax", attrs, n.Inputs[0])
		}},
		"Celu": {"alpha·elu(x/alpha): _div_scalar, LeakyReLU act_type=elu, _mul_scalar", (*exporter).celu},
		"Mish": {"x·tanh(softrelu(x)): Activation softrelu and tanh, elemwise_mul", (*exporter).mish},
	})
	optable.Add(&lacks, map[string]string{
		"Hardmax":         "MXNet 1.x has no hardmax op",
		"ThresholdedRelu": "MXNet 1.x has no thresholded relu op",
		"Shrink":          "MXNet 1.x has no hard or soft shrink op",
		"Einsum":          "MXNet 1.x has no einsum op outside numpy extensions",
	})
}

// celu writes Celu as alpha·elu(x/alpha), its definition rewritten with
// MXNet's elu (slope 1).
func (e *exporter) celu(n *canon.Node) error {
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	out, alpha := n.Outputs[0], f32(n.Op.(*canon.Celu).Alpha)
	scaled := ref{e.add("_div_scalar", out+"_scaled", map[string]string{"scalar": alpha}, 1, x), 0}
	elu := ref{e.add("LeakyReLU", out+"_elu", map[string]string{"act_type": "elu", "slope": "1"}, 1, scaled), 0}
	return e.finish(out, e.add("_mul_scalar", out, map[string]string{"scalar": alpha}, 1, elu))
}

// mish writes Mish as x·tanh(softrelu(x)); Activation act_type=mish is
// MXNet 2.x only.
func (e *exporter) mish(n *canon.Node) error {
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	sp := ref{e.add("Activation", out+"_softrelu", map[string]string{"act_type": "softrelu"}, 1, x), 0}
	th := ref{e.add("Activation", out+"_tanh", map[string]string{"act_type": "tanh"}, 1, sp), 0}
	return e.finish(out, e.add("elemwise_mul", out, nil, 1, x, th))
}
