package tfliteexport

import (
	"fmt"
	"io"
	"strings"
)

// transposeAt is one TRANSPOSE the exporter wrote to move a value between
// layouts: at the graph's edge (an input or output kept NCHW) or inside.
type transposeAt struct {
	value string
	edge  bool
}

// Report says what the exporter decided.
type Report struct {
	transposes  []transposeAt
	foldedBN    int
	fusedActs   int
	halfWeights int
	flattenedFC int
	// expanded counts nodes of kinds TFLite lacks written as canon's
	// expansion of them.
	expanded int
}

// InnerTransposes names the values a TRANSPOSE was written for between two
// ops (zero for a network whose ops all have an NHWC form).
func (r Report) InnerTransposes() []string {
	var out []string
	for _, t := range r.transposes {
		if !t.edge {
			out = append(out, t.value)
		}
	}
	return out
}

// EdgeTransposes counts the TRANSPOSEs at graph inputs and outputs.
func (r Report) EdgeTransposes() int {
	n := 0
	for _, t := range r.transposes {
		if t.edge {
			n++
		}
	}
	return n
}

// Expanded counts the nodes written as canon's expansion of them.
func (r Report) Expanded() int { return r.expanded }

func (r Report) describe(w io.Writer, o Options) {
	if o.NHWCIO {
		fmt.Fprintln(w, "tflite: 4-D inputs and outputs are NHWC in the file")
	} else if n := r.EdgeTransposes(); n > 0 {
		fmt.Fprintf(w, "tflite: inputs and outputs keep the model's NCHW shapes: %d TRANSPOSE ops at the graph's edges (--io-layout nhwc writes none)\n", n)
	}
	if in := r.InnerTransposes(); len(in) > 0 {
		fmt.Fprintf(w, "tflite: %d TRANSPOSE ops inside the graph, for values an op reads in another layout: %s\n", len(in), strings.Join(in, ", "))
	}
	if r.foldedBN > 0 {
		fmt.Fprintf(w, "tflite: %d batch norms folded into the convolution before them\n", r.foldedBN)
	}
	if r.fusedActs > 0 {
		fmt.Fprintf(w, "tflite: %d activations fused into the op before them\n", r.fusedActs)
	}
	if r.flattenedFC > 0 {
		fmt.Fprintf(w, "tflite: %d flattens before a fully connected layer absorbed by permuting its weight columns\n", r.flattenedFC)
	}
	if r.expanded > 0 {
		fmt.Fprintf(w, "tflite: %d nodes of kinds TFLite has no op for (Attention, RotaryEmbedding) written as their exact expansion\n", r.expanded)
	}
	if r.halfWeights > 0 {
		fmt.Fprintf(w, "tflite: %d float weights stored as float16 behind DEQUANTIZE\n", r.halfWeights)
	}
}
