package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/modelbridge/modelbridge/optimize/quantize"
)

// quantSummary is what --quantize did and measured: printed as text, or
// the "quantize" object of optimize --json (docs/json.md).
type quantSummary struct {
	Report *quantize.Report `json:"report"`
	// KeptFloat gives each class left float on request or by measurement
	// with the reason.
	KeptFloat []keptFloatClass `json:"kept_float_reasons,omitempty"`
	Speed     *quantize.Speed  `json:"speed,omitempty"`
	// LeftFloat: ONNX Runtime ran the quantized model slower, so the float
	// model was written and nothing below was measured.
	LeftFloat bool `json:"left_float"`
	// HeldOut is the number of input sets Outputs were measured on.
	HeldOut int               `json:"heldout_samples"`
	Outputs []quantOutputJSON `json:"outputs"`
	// MinSQNR is --min-sqnr when given.
	MinSQNR *float64 `json:"min_sqnr_db,omitempty"`
	// Nodes is the written model's node count.
	Nodes int `json:"nodes"`
}

type keptFloatClass struct {
	Class  string `json:"class"`
	Reason string `json:"reason"`
}

// quantOutputJSON is an output's quantization error; SQNR is null when the
// quantized output equals the float one (infinite SQNR has no JSON number).
type quantOutputJSON struct {
	Name     string   `json:"name"`
	SQNR     *float64 `json:"sqnr_db"`
	MaxAbs   float64  `json:"max_abs_error"`
	Elements int64    `json:"elements"`
	Samples  int      `json:"samples"`
	// Drawn: computed from random draws, not compared.
	Drawn bool `json:"drawn,omitempty"`
}

func quantOutputs(errs []quantize.OutputError) []quantOutputJSON {
	out := make([]quantOutputJSON, 0, len(errs))
	for _, e := range errs {
		o := quantOutputJSON{Name: e.Name, MaxAbs: e.MaxAbs, Elements: e.Elements, Samples: e.Samples, Drawn: e.Drawn}
		if !math.IsInf(e.SQNR, 0) && !math.IsNaN(e.SQNR) {
			db := e.SQNR
			o.SQNR = &db
		}
		out = append(out, o)
	}
	return out
}

// keptFloatReasons says why each of r.KeptFloat stayed float: asked for
// with --keep-float, or timed faster float in the runtime.
func keptFloatReasons(r *quantize.Report, asked []string, s *quantize.Speed) []keptFloatClass {
	var out []keptFloatClass
	for _, c := range r.KeptFloat {
		reason := "left float"
		if slices.Contains(asked, c) {
			reason = "asked with --keep-float"
		} else if s != nil {
			for _, st := range s.Steps {
				if st.Class == c && st.Float {
					reason = fmt.Sprintf("%s ran the model faster with it float (x%.2f ±%.1f%%)", s.Target, st.Comparison.Ratio, st.Comparison.Noise*100)
				}
			}
		}
		out = append(out, keptFloatClass{Class: c, Reason: reason})
	}
	return out
}

// print writes the summary as text.
func (s *quantSummary) print(w io.Writer) {
	r := s.Report
	var parts []string
	for _, c := range sortedKeys(r.Quantized) {
		parts = append(parts, fmt.Sprintf("%s %d", c, r.Quantized[c]))
	}
	how := "dynamic (activations quantized at run time)"
	if r.Mode == "static" {
		how = fmt.Sprintf("static, %s calibration on %d input sets", r.Method, r.Samples)
	}
	fmt.Fprintf(w, "quantized (%s): %s", how, strings.Join(parts, ", "))
	if r.Folded > 0 {
		fmt.Fprintf(w, "; %d Relu/Clip folded into the quantized ranges", r.Folded)
	}
	fmt.Fprintln(w)
	for _, k := range s.KeptFloat {
		fmt.Fprintf(w, "  left float: %s: %s\n", k.Class, k.Reason)
	}
	for _, f := range r.Float {
		fmt.Fprintf(w, "  float: %s x%d: %s\n", f.Kind, f.Count, f.Reason)
	}
	if s.Speed != nil {
		printQuantSpeed(w, s.Speed)
	}
	if s.LeftFloat {
		fmt.Fprintf(w, "left float: ONNX Runtime runs the quantized model slower (x%.2f); writing the float model\n", s.Speed.Overall.Ratio)
		return
	}
	printSQNR(w, s.Outputs, s.HeldOut)
}

// verdict is the line that replaces the float passes' "verified" claim:
// a quantized model differs from the original by design, and how much is
// what the SQNR table measured.
func (s *quantSummary) verdict() string {
	if s.LeftFloat {
		return "quantization not kept: the written model is the float one"
	}
	worst := math.Inf(1)
	for _, o := range s.Outputs {
		if o.SQNR != nil && *o.SQNR < worst {
			worst = *o.SQNR
		}
	}
	what := "every output equal to the float model's"
	if !math.IsInf(worst, 1) {
		what = fmt.Sprintf("lowest output SQNR %.2f dB", worst)
	}
	line := fmt.Sprintf("quantized model measured against the float one on %d held-out input sets: %s", s.HeldOut, what)
	if s.MinSQNR != nil {
		line += fmt.Sprintf(" (--min-sqnr %.1f)", *s.MinSQNR)
	}
	return line
}
