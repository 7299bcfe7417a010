package quantize

import (
	"fmt"
	"slices"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/optimize"
)

// Options tunes static and dynamic quantization.
type Options struct {
	Calibration CalibrateOptions
	// Activations is the activation type: canon.Uint8 (default) or canon.Int8.
	Activations canon.DType
	// KeepFloat lists node classes (see Class) left float.
	KeepFloat []string
}

// Report says what was quantized and what stayed float.
type Report struct {
	Mode   string `json:"mode"` // "static" or "dynamic"
	Method Method `json:"method,omitempty"`
	// Samples is the number of calibration input sets.
	Samples int `json:"calibration_samples,omitempty"`
	// Quantized counts the quantized nodes by class.
	Quantized map[string]int `json:"quantized"`
	// Folded counts the Relu/Clip nodes folded into a quantized output.
	Folded int `json:"folded_activations,omitempty"`
	// Float lists the op kinds left float and why.
	Float []FloatNote `json:"float,omitempty"`
	// KeptFloat are the classes left float on request or by measurement.
	KeptFloat []string `json:"kept_float,omitempty"`
}

// FloatNote is an op kind left in float.
type FloatNote struct {
	Kind   string `json:"kind"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

// Calibrated is a float graph with the ranges of every tensor that any
// static quantization of it may quantize; Build makes the QDQ graph.
type Calibrated struct {
	g       *canon.Graph
	ranges  map[string]Range
	opts    Options
	samples int
}

// Prepare runs g over the samples and records the ranges Build needs.
// g must stay open while the result is used.
func Prepare(g *canon.Graph, src Samples, opts Options) (*Calibrated, error) {
	if opts.Activations == canon.Undefined {
		opts.Activations = canon.Uint8
	}
	if opts.Activations != canon.Uint8 && opts.Activations != canon.Int8 {
		return nil, fmt.Errorf("activation type %s: use uint8 or int8", opts.Activations)
	}
	c := optimize.Clone(g)
	if err := c.Infer(); err != nil {
		return nil, err
	}
	p := planStatic(c, nil)
	tensors := slices.Clone(p.acts)
	for r := range p.foldable {
		tensors = append(tensors, r.Outputs[0])
	}
	if len(p.roles) == 0 {
		return nil, fmt.Errorf("nothing to quantize: no Conv, Gemm/Linear or MatMul with a constant float32 weight, Add, Mul, pooling, Concat or Resize on float32 values")
	}
	ranges, err := Calibrate(c, tensors, src, opts.Calibration)
	if err != nil {
		return nil, err
	}
	return &Calibrated{g: g, ranges: ranges, opts: opts, samples: src.Len()}, nil
}

// Build writes the QDQ graph, leaving the classes in keepFloat (and
// opts.KeepFloat) float.
func (c *Calibrated) Build(keepFloat []string) (*canon.Graph, *Report, error) {
	keep := append(slices.Clone(c.opts.KeepFloat), keepFloat...)
	q := optimize.Clone(c.g)
	if err := q.Infer(); err != nil {
		return nil, nil, err
	}
	p := planStatic(q, func(n *canon.Node) bool { return slices.Contains(keep, Class(n, q)) })
	rep := &Report{Mode: "static", Method: c.opts.Calibration.Method, Samples: c.samples, Quantized: map[string]int{}, KeptFloat: keep}
	if rep.Method == "" {
		rep.Method = MinMax
	}
	for n := range p.roles {
		rep.Quantized[Class(n, q)]++
	}
	rep.Float = floatNotes(q, func(n *canon.Node) bool { _, ok := p.roles[n]; return ok || p.foldable[n] != nil }, keptReason(q, keep, floatReason))
	rw, err := rewriteStatic(q, p, c.ranges, c.opts.Activations)
	if err != nil {
		return nil, nil, err
	}
	rep.Folded = rw.folded
	if err := finish(q); err != nil {
		return nil, nil, err
	}
	return q, rep, nil
}

// Static calibrates g over the samples and quantizes it.
func Static(g *canon.Graph, src Samples, opts Options) (*canon.Graph, *Report, error) {
	c, err := Prepare(g, src, opts)
	if err != nil {
		return nil, nil, err
	}
	return c.Build(nil)
}

func finish(g *canon.Graph) error {
	g.Values = nil
	if err := g.Infer(); err != nil {
		return fmt.Errorf("quantized graph: %w", err)
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("quantized graph: %w", err)
	}
	return nil
}

// floatNotes counts the float-computing ops left float, by kind (or by
// class when reason names one) and reason.
func floatNotes(g *canon.Graph, quantized func(*canon.Node) bool, reason func(*canon.Node) (string, string)) []FloatNote {
	type key struct{ kind, reason string }
	counts := map[key]int{}
	for _, n := range g.Nodes {
		if quantized(n) || len(n.Outputs) == 0 || n.Outputs[0] == "" || g.Values.Get(n.Outputs[0]).DType != canon.Float32 || g.Values.Get(n.Outputs[0]).Const != nil {
			continue
		}
		switch n.Op.(type) {
		case *canon.Constant, *canon.Identity, *canon.Reshape, *canon.Flatten, *canon.Transpose, *canon.Squeeze, *canon.Unsqueeze:
			continue
		}
		if kind, r := reason(n); r != "" {
			counts[key{kind, r}]++
		}
	}
	var out []FloatNote
	for k, c := range counts {
		out = append(out, FloatNote{Kind: k.kind, Count: c, Reason: k.reason})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Count > out[j].Count || out[i].Count == out[j].Count && out[i].Kind < out[j].Kind
	})
	return out
}

// keptReason names the nodes of the classes left float on purpose.
func keptReason(g *canon.Graph, keep []string, other func(kind string) string) func(*canon.Node) (string, string) {
	return func(n *canon.Node) (string, string) {
		if c := Class(n, g); slices.Contains(keep, c) {
			return c, "left float (--keep-float, or ONNX Runtime timed it faster float)"
		}
		return n.Op.Kind(), other(n.Op.Kind())
	}
}
