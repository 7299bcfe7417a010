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

// layersReport is `check --layers`: every intermediate value of A matched
// with one of B, compared, in A's topological order.
type layersReport struct {
	// Runtimes that computed the intermediates of A and B.
	RuntimeA string     `json:"runtime_a"`
	RuntimeB string     `json:"runtime_b"`
	Layers   []layerRow `json:"layers"`
	// FirstDiff indexes Layers: the first layer whose output differs while
	// its inputs agree (-1: none).
	FirstDiff int `json:"first_differing"`
	// UnmatchedA counts A's layers with no counterpart in B.
	UnmatchedA int `json:"unmatched_a"`
}

type layerRow struct {
	NodeA     string   `json:"node_a"`
	OpA       string   `json:"op_a"`
	ValueA    string   `json:"value_a"`
	NodeB     string   `json:"node_b"`
	OpB       string   `json:"op_b"`
	ValueB    string   `json:"value_b"`
	MatchedBy string   `json:"matched_by"` // "name" or "structure"
	Weights   []string `json:"weights,omitempty"`
	// Inputs are the errors of the layer's inputs (matched layers, graph
	// inputs and weights).
	Inputs []layerInput `json:"inputs"`
	compare.Result
}

type layerInput struct {
	Name   string  `json:"name"`
	MaxAbs float64 `json:"max_abs_error"`
	OK     bool    `json:"ok"`
	// Kind is "layer", "input" (the same value fed to both) or "unmatched".
	Kind string `json:"kind"`
}

// layerValue is a compared value: the output of a significant node, or,
// when that output only feeds a chain of foldable nodes (BatchNorm, a
// constant scale or shift, Identity), the chain's last output, so that a
// conv with BatchNorm folded in matches the original conv+BN.
type layerValue struct {
	node  *canon.Node // the significant node
	value string      // the compared value
	key   string      // op family for structural matching
	shape []int64
	// chain is the significant node and the foldable nodes after it; the
	// layer's inputs are the chain's inputs from outside it.
	chain []*canon.Node
}

// compareLayers computes every intermediate value of A and B on one sample
// and compares the matched pairs by the rule the outputs are compared by.
func compareLayers(sa, sb *checkSide, inA, inB map[string]*canon.Tensor, tol compare.Tolerance) (*layersReport, error) {
	valsA, descA, err := allValues(sa, inA)
	if err != nil {
		return nil, err
	}
	valsB, descB, err := allValues(sb, inB)
	if err != nil {
		return nil, err
	}
	la, lb := layerValues(sa.g, valsA), layerValues(sb.g, valsB)
	pairs := matchLayers(la, lb)
	rep := &layersReport{RuntimeA: descA, RuntimeB: descB, FirstDiff: -1}
	// Errors of A's values, for the inputs column; graph inputs are fed
	// identically to both.
	errOf := map[string]layerInput{}
	for _, in := range sa.g.Inputs {
		errOf[in.Name] = layerInput{Name: in.Name, OK: true, Kind: "input"}
	}
	inits := sa.g.InitializerIndex()
	for i, a := range la {
		j, ok := pairs[i]
		if !ok {
			rep.UnmatchedA++
			continue
		}
		b := lb[j]
		res, err := tol.Check(valsB[b.value], valsA[a.value])
		if err != nil {
			continue // a value whose shape differs cannot be compared element by element
		}
		row := layerRow{NodeA: a.node.Name, OpA: a.node.Op.Kind(), ValueA: a.value, NodeB: b.node.Name, OpB: b.node.Op.Kind(),
			ValueB: b.value, MatchedBy: "structure", Result: res}
		if a.value == b.value {
			row.MatchedBy = "name"
		}
		for _, n := range a.chain {
			for _, in := range n.Inputs {
				if in == "" {
					continue
				}
				if inits[in] != nil {
					row.Weights = append(row.Weights, in)
					continue
				}
				if slices.ContainsFunc(a.chain, func(c *canon.Node) bool { return slices.Contains(c.Outputs, in) }) {
					continue
				}
				e, ok := errOf[in]
				if !ok {
					e = layerInput{Name: in, Kind: "unmatched", OK: true}
				}
				row.Inputs = append(row.Inputs, e)
			}
		}
		for _, n := range a.chain {
			for _, o := range n.Outputs {
				errOf[o] = layerInput{Name: o, MaxAbs: res.MaxAbs, OK: res.OK, Kind: "layer"}
			}
		}
		rep.Layers = append(rep.Layers, row)
		if !res.OK && rep.FirstDiff < 0 {
			inputsOK := true
			for _, in := range row.Inputs {
				inputsOK = inputsOK && in.OK
			}
			if inputsOK {
				rep.FirstDiff = len(rep.Layers) - 1
			}
		}
	}
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

// foldable ops can disappear into the op before them when a model is
// optimized: BatchNorm and a constant scale or shift into a conv or matmul.
func foldable(n *canon.Node, g *canon.Graph, inits map[string]*canon.Tensor) bool {
	switch n.Op.Kind() {
	case "BatchNormalization", "Identity", "Dropout":
		return true
	case "Add", "Sub", "Mul", "Div":
		for _, in := range n.Inputs {
			if inits[in] != nil || (g.Values.Get(in).Const != nil) {
				return true
			}
		}
	}
	return false
}

// familyOf groups ops that different importers spell differently.
func familyOf(kind string) string {
	switch kind {
	case "Gemm", "Linear", "MatMul":
		return "matmul"
	}
	return kind
}

// layerValues lists g's layers in topological order: float values that
// depend on the inputs.
func layerValues(g *canon.Graph, vals map[string]*canon.Tensor) []layerValue {
	inits := g.InitializerIndex()
	consumers := g.Consumers()
	absorbed := map[*canon.Node]bool{}
	var out []layerValue
	for _, n := range g.Nodes {
		if absorbed[n] || len(n.Outputs) == 0 {
			continue
		}
		chain := []*canon.Node{n}
		for k, o := range n.Outputs {
			t := vals[o]
			if o == "" || t == nil || !t.DType.IsFloat() || g.Values.Get(o).Const != nil {
				continue
			}
			value := o
			// Follow a single-consumer chain of foldable ops of the same shape.
			for k == 0 && len(n.Outputs) == 1 {
				next := consumers[value]
				if len(next) != 1 || !foldable(next[0], g, inits) || len(next[0].Outputs) != 1 || isGraphOutput(g, value) {
					break
				}
				nt := vals[next[0].Outputs[0]]
				if nt == nil || !slices.Equal(nt.Shape, t.Shape) {
					break
				}
				absorbed[next[0]] = true
				chain = append(chain, next[0])
				value = next[0].Outputs[0]
			}
			out = append(out, layerValue{node: n, value: value, key: familyOf(n.Op.Kind()), shape: vals[value].Shape, chain: chain})
		}
	}
	return out
}

func isGraphOutput(g *canon.Graph, name string) bool {
	for _, o := range g.Outputs {
		if o.Name == name {
			return true
		}
	}
	return false
}

// matchLayers pairs A's layers with B's: by value name where B has the
// same name and shape, and the rest by the longest common subsequence of
// (op family, shape) in topological order.
func matchLayers(a, b []layerValue) map[int]int {
	pairs := map[int]int{}
	byName := map[string]int{}
	for j, v := range b {
		byName[v.value] = j
	}
	usedB := map[int]bool{}
	for i, v := range a {
		if j, ok := byName[v.value]; ok && slices.Equal(b[j].shape, v.shape) {
			pairs[i] = j
			usedB[j] = true
		}
	}
	same := func(i, j int) bool {
		if p, ok := pairs[i]; ok {
			return p == j
		}
		return !usedB[j] && a[i].key == b[j].key && slices.Equal(a[i].shape, b[j].shape)
	}
	n, m := len(a), len(b)
	if n*m > 50_000_000 {
		return pairs // too large for the table; names only
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case same(i, j):
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case same(i, j):
			pairs[i] = j
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}

func printLayers(w io.Writer, r *layersReport) {
	fmt.Fprintf(w, "\nlayers (first sample; A by %s, B by %s):\n", r.RuntimeA, r.RuntimeB)
	fmt.Fprintf(w, "  %-4s %-30s %-20s %-30s %-10s %-10s %-10s %s\n", "#", "node A", "op A", "node B", "matched", "max abs", "max rel", "status")
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
		fmt.Fprintf(w, "  %-4d %-30s %-20s %-30s %-10s %-10.3g %-10.3g %s\n", i, clip(l.NodeA, 30), clip(op, 20), clip(l.NodeB, 30), l.MatchedBy, l.MaxAbs, l.MaxRel, status)
	}
	if r.UnmatchedA > 0 {
		fmt.Fprintf(w, "  (%d layer(s) of A have no counterpart in B)\n", r.UnmatchedA)
	}
	if r.FirstDiff < 0 {
		bad := slices.ContainsFunc(r.Layers, func(l layerRow) bool { return !l.OK })
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
