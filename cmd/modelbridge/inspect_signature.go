package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// Metadata keys an importer sets when its format records a graph
// signature (what each graph input and output is) and ranges of symbolic
// sizes, as torch.export programs do.
const (
	signatureInputKey  = "signature.input."
	signatureOutputKey = "signature.output."
	rangeKey           = "range."
)

type signatureReport struct {
	Value string `json:"value"`
	Role  string `json:"role"`
}

type symbolReport struct {
	Name  string `json:"name"`
	Range string `json:"range,omitempty"`
}

// addSignature fills the report's signature and the symbolic dims of the
// inputs and outputs, with the ranges the file records.
func addSignature(rep *inspectReport, g *canon.Graph) {
	ranges := map[string]string{}
	for _, p := range g.Meta.Props {
		switch {
		case strings.HasPrefix(p.Key, signatureInputKey):
			rep.Signature = append(rep.Signature, signatureReport{Value: strings.TrimPrefix(p.Key, signatureInputKey), Role: p.Value})
		case strings.HasPrefix(p.Key, signatureOutputKey):
			rep.Signature = append(rep.Signature, signatureReport{Value: strings.TrimPrefix(p.Key, signatureOutputKey), Role: p.Value})
		case strings.HasPrefix(p.Key, rangeKey):
			ranges[strings.TrimPrefix(p.Key, rangeKey)] = p.Value
		}
	}
	seen := map[string]bool{}
	for _, vs := range [][]canon.ValueInfo{g.Inputs, g.Outputs} {
		for _, v := range vs {
			for _, d := range v.Shape {
				if !d.Known() && d.Param != "" && !seen[d.Param] {
					seen[d.Param] = true
					rep.Symbols = append(rep.Symbols, symbolReport{Name: d.Param, Range: ranges[d.Param]})
				}
			}
		}
	}
}

func printSignature(w io.Writer, r inspectReport) {
	if len(r.Symbols) > 0 {
		fmt.Fprintln(w, "symbolic dims:")
		for _, s := range r.Symbols {
			rng := s.Range
			if rng == "" {
				rng = "range not recorded"
			}
			fmt.Fprintf(w, "  %-24s %s\n", s.Name, rng)
		}
	}
	if len(r.Signature) > 0 {
		fmt.Fprintln(w, "signature:")
		for _, s := range r.Signature {
			fmt.Fprintf(w, "  %-24s %s\n", s.Value, s.Role)
		}
	}
}
