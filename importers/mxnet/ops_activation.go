package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The activation family: MXNet 1.x has log_softmax; the other kinds have
// no MXNet 1.x op (the exporter writes Celu and Mish as exact expansions,
// which read back as their parts).

func init() {
	optable.Add(&converters, map[string]mxOp{
		"log_softmax": {convLogSoftmax, []string{"LogSoftmax"}},
	})
	optable.Add(&lacks, map[string]string{
		"Hardmax":         "MXNet 1.x has no hardmax op",
		"Celu":            "MXNet 1.x has no celu op (alpha·elu(x/alpha) is read as its parts)",
		"Mish":            "MXNet 1.x has no mish op (Activation act_type=mish is MXNet 2.x); x·tanh(softrelu(x)) is read as its parts",
		"ThresholdedRelu": "MXNet 1.x has no thresholded relu op",
		"Shrink":          "MXNet 1.x has no hard or soft shrink op",
		"Einsum":          "MXNet 1.x has no einsum op outside numpy extensions",
	})
}

// convLogSoftmax reads log_softmax(data, axis=-1, temperature=None,
// dtype=None, use_length=False).
func convLogSoftmax(b *builder, c *nodeCtx) ([]string, error) {
	axis, err := c.a.int("axis", -1)
	if err != nil {
		return nil, err
	}
	if s := c.a.str("temperature", "None"); s != "None" {
		t, err := c.a.float("temperature", 1)
		if err != nil {
			return nil, err
		}
		if t != 1 {
			return nil, c.errf("log_softmax with temperature %g is not supported", t)
		}
	}
	if l, err := c.a.bool("use_length", false); err != nil || l {
		if err != nil {
			return nil, err
		}
		return nil, c.errf("log_softmax with use_length=True is not supported")
	}
	return single(b, c, &canon.LogSoftmax{Axis: axis})
}
