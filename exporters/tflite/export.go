// Package tfliteexport writes canonical graphs as TensorFlow Lite models: a
// schema-3 flatbuffer ("TFL3") with one subgraph, its buffers, operator
// codes and a serving_default signature. TFLite computes in NHWC: every
// 4-D value is held channels-last inside the file, weights are permuted
// once (CONV_2D OHWI, DEPTHWISE_CONV_2D 1HWO, TRANSPOSE_CONV OHWI), axes
// of Concat/Softmax/reductions/Pad/Slice are remapped and a Flatten before
// a fully connected layer is absorbed into its weight columns, so that no
// TRANSPOSE is written between two ops of a convolutional network. The
// graph's inputs and outputs keep their NCHW shapes (one TRANSPOSE at each
// end) unless the model is written with NHWC inputs and outputs
// (WriteOptions.IOLayout). Ops TFLite lacks are written as an exact
// expansion or refused, naming the node.
package tfliteexport

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
)

func init() {
	formats.RegisterExporter(&formats.Exporter{
		Name:       "tflite",
		Extensions: []string{".tflite"},
		Write:      Write,
		Ops:        Ops,
	})
}

// Options choose what Encode writes beyond the graph itself.
type Options struct {
	// NHWCIO makes 4-D graph inputs and outputs NHWC in the file, as
	// TFLite users expect; no TRANSPOSE is written at all then.
	NHWCIO bool
	// Float16Weights stores float constants as float16 buffers read
	// through DEQUANTIZE, as TensorFlow's float16 quantization does; the
	// ops still compute in float32.
	Float16Weights bool
	// HalfRoundedWeights, with Float16Weights, stores the float16 values
	// as float32 buffers and writes no DEQUANTIZE: the same numbers, for
	// runtimes that take only constant float32 filters (Arm NN 22).
	HalfRoundedWeights bool
}

// Write exports g to path; nothing is written when the graph is refused.
func Write(g *canon.Graph, path string, opts formats.WriteOptions) error {
	o := Options{Float16Weights: opts.Float16Weights}
	switch strings.ToLower(opts.IOLayout) {
	case "", "nchw":
	case "nhwc":
		o.NHWCIO = true
	default:
		return fmt.Errorf("tflite: io layout %q: want nchw or nhwc", opts.IOLayout)
	}
	data, rep, err := Encode(g, o)
	if err != nil {
		return err
	}
	if opts.Verbose != nil {
		rep.describe(opts.Verbose, o)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if opts.Progress != nil {
		opts.Progress(int64(len(data)), int64(len(data)))
	}
	return f.Commit()
}

// Encode renders g as a .tflite flatbuffer in memory.
func Encode(g *canon.Graph, o Options) ([]byte, Report, error) {
	e, err := newExporter(g, o)
	if err != nil {
		return nil, Report{}, err
	}
	if err := e.run(); err != nil {
		return nil, Report{}, err
	}
	return e.m.serialize(), e.report, nil
}
