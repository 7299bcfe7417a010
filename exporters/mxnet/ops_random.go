package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// MXNet's samplers: _random_uniform and _random_normal take the shape as an
// attribute; their _like forms take the shape of an input. MXNet draws
// from its own generator (an ONNX seed is not carried).

func init() {
	optable.Add(&writers, map[string]opWriter{
		"RandomUniform": {"_random_uniform", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.RandomUniform)
			return e.draw(n, "_random_uniform", op.DType, "low", op.Low, "high", op.High, op.Shape)
		}},
		"RandomNormal": {"_random_normal", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.RandomNormal)
			return e.draw(n, "_random_normal", op.DType, "loc", op.Mean, "scale", op.Scale, op.Shape)
		}},
		"RandomUniformLike": {"_random_uniform_like", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.RandomUniformLike)
			return e.draw(n, "_random_uniform_like", op.DType, "low", op.Low, "high", op.High, nil)
		}},
		"RandomNormalLike": {"_random_normal_like", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.RandomNormalLike)
			return e.draw(n, "_random_normal_like", op.DType, "loc", op.Mean, "scale", op.Scale, nil)
		}},
	})
	optable.Add(&lacks, map[string]string{
		"Bernoulli":   "MXNet 1.x's symbol API has no Bernoulli sampler (only the numpy interface's _npi_bernoulli)",
		"Multinomial": "MXNet's _sample_multinomial draws int32 indices from probabilities; writing it is not done yet",
	})
}

// draw writes a sampler: with a shape attribute when shape is non-nil,
// else shaped like the node's input.
func (e *exporter) draw(n *canon.Node, op string, dt canon.DType, a string, av float32, b string, bv float32, shape []int64) error {
	if dt != canon.Float32 && dt != canon.Float64 && dt != canon.Float16 {
		return fmt.Errorf("%s of dtype %s cannot be written: MXNet samples float16, float32 or float64", n.Op.Kind(), dt)
	}
	attrs := map[string]string{
		a: strconv.FormatFloat(float64(av), 'g', -1, 32),
		b: strconv.FormatFloat(float64(bv), 'g', -1, 32),
	}
	if shape == nil {
		// The _like forms draw in their input's dtype.
		if in := e.g.Values.Get(n.Inputs[0]).DType; in != dt {
			return fmt.Errorf("%s drawing %s from a %s input cannot be written: MXNet's %s draws in its input's dtype", n.Op.Kind(), dt, in, op)
		}
		return e.single(n, op, attrs, n.Inputs[0])
	}
	attrs["dtype"] = mxDTypes[dt]
	attrs["shape"] = tuple(shape)
	if len(shape) == 0 {
		attrs["shape"] = "()"
	}
	return e.finish(n.Outputs[0], e.add(op, n.Outputs[0], attrs, 1))
}
