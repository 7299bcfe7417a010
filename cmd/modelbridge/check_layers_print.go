package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes"
	"github.com/modelbridge/modelbridge/interp"
)

// compareLayers computes every intermediate value of A and B on one sample
// and compares the matched pairs by the rule the outputs are compared by
// (compare.Layers matches them).
func compareLayers(sa, sb *checkSide, inA, inB map[string]*canon.Tensor, tol compare.Tolerance) (*compare.LayersReport, error) {
	valsA, descA, err := allValues(sa, inA)
	if err != nil {
		return nil, err
	}
	valsB, descB, err := allValues(sb, inB)
	if err != nil {
		return nil, err
	}
	rep := compare.Layers(sa.g, sb.g, valsA, valsB, tol)
	rep.RuntimeA, rep.RuntimeB = descA, descB
	return rep, nil
}

// allValues runs a side and returns every value it computed. ONNX Runtime
// exposes its intermediates as extra graph outputs; PyTorch does not
// without changing the model, so a TorchScript or .pt2 side's
// intermediates come from the interpreter running its imported graph (its
// final outputs still come from PyTorch).
func allValues(s *checkSide, in map[string]*canon.Tensor) (map[string]*canon.Tensor, string, error) {
	if s.g == nil || len(s.g.Nodes) == 0 {
		return nil, "", usageErrorf("%s: --layers needs the model's graph, which modelbridge cannot read from it (a `convert --to torch` folder, or a model it cannot import); compare the layers of the model it was made from, and its outputs without --layers", s.path)
	}
	if s.runtime == runtimes.ORT {
		vals, desc, err := ortAllValues(s, in)
		return vals, desc, err
	}
	g := *s.g // a shallow copy: the same nodes and weights, more outputs
	g.Outputs = slices.Clone(s.g.Outputs)
	have := map[string]bool{}
	for _, o := range g.Outputs {
		have[o.Name] = true
	}
	for _, n := range s.g.Nodes {
		for _, o := range n.Outputs {
			if o == "" || have[o] {
				continue
			}
			have[o] = true
			v, ok := s.g.Values.Lookup(o)
			if !ok {
				v = canon.ValueInfo{Name: o}
			}
			g.Outputs = append(g.Outputs, v)
		}
	}
	p, err := interp.New(&g)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", s.path, err)
	}
	vals, err := p.Run(in)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", s.path, err)
	}
	return vals, "modelbridge interpreter", nil
}

func printLayers(w io.Writer, r *compare.LayersReport) {
	fmt.Fprintf(w, "\nlayers (first sample; A by %s, B by %s):\n", r.RuntimeA, r.RuntimeB)
	fmt.Fprintf(w, "  %-4s %-30s %-20s %-30s %-10s %-10s %-10s %-9s %s\n", "#", "node A", "op A", "node B", "matched", "max abs", "max rel", "SQNR dB", "status")
	for i, l := range r.Layers {
		status := "ok"
		if !l.OK {
			status = fmt.Sprintf("DIFFERS (%d of %d)", l.Mismatched, l.Elements)
		}
		if i == r.FirstDiff {
			status += "  <- first"
		}
		op := l.OpA
		if l.OpB != l.OpA {
			op += "/" + l.OpB
		}
		fmt.Fprintf(w, "  %-4d %-30s %-20s %-30s %-10s %-10.3g %-10.3g %-9s %s\n", i, clip(l.NodeA, 30), clip(op, 20), clip(l.NodeB, 30), l.MatchedBy, l.MaxAbs, l.MaxRel, sqnrText(l.SQNR), status)
	}
	printSQNRLoss(w, r)
	if r.UnmatchedA > 0 {
		fmt.Fprintf(w, "  (%d layer(s) of A have no counterpart in B)\n", r.UnmatchedA)
	}
	if r.FirstDiff < 0 {
		bad := slices.ContainsFunc(r.Layers, func(l compare.LayerRow) bool { return !l.OK })
		if bad {
			fmt.Fprintln(w, "layers differ, but each differing layer has an input that differs or could not be matched")
		} else {
			fmt.Fprintln(w, "every matched layer agrees")
		}
		return
	}
	l := r.Layers[r.FirstDiff]
	fmt.Fprintf(w, "first differing layer: node %q (%s) in A, %q (%s) in B: output %s max abs %.3g, max rel %.3g\n",
		l.NodeA, l.OpA, l.NodeB, l.OpB, l.ValueA, l.MaxAbs, l.MaxRel)
	var ins []string
	for _, in := range l.Inputs {
		switch in.Kind {
		case "input":
			ins = append(ins, in.Name+" (model input, same in both)")
		case "unmatched":
			ins = append(ins, in.Name+" (not matched in B)")
		default:
			ins = append(ins, fmt.Sprintf("%s (max abs %.3g)", in.Name, in.MaxAbs))
		}
	}
	fmt.Fprintf(w, "  its inputs agree: %s\n", strings.Join(ins, ", "))
	if len(l.Weights) > 0 {
		fmt.Fprintf(w, "  its weights: %s\n", strings.Join(l.Weights, ", "))
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n+1:]
}
