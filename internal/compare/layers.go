package compare

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// LayersReport is `check --layers`: every intermediate value of A matched
// with one of B, compared, in A's topological order.
type LayersReport struct {
	// Runtimes that computed the intermediates of A and B.
	RuntimeA string     `json:"runtime_a"`
	RuntimeB string     `json:"runtime_b"`
	Layers   []LayerRow `json:"layers"`
	// FirstDiff indexes Layers: the first layer whose output differs while
	// its inputs agree (-1: none).
	FirstDiff int `json:"first_differing"`
	// UnmatchedA counts A's layers with no counterpart in B.
	UnmatchedA int `json:"unmatched_a"`
	// SQNRThreshold (dB) is the threshold MarkSQNRLoss was given;
	// FirstBelow indexes Layers: the first layer whose SQNR is below it
	// while its inputs' are not (-1: none, or no threshold).
	SQNRThreshold float64 `json:"sqnr_threshold_db,omitempty"`
	FirstBelow    int     `json:"first_below_sqnr"`
}

type LayerRow struct {
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
	Inputs []LayerInput `json:"inputs"`
	Result
	// SQNR of B's value against A's in dB (absent when they are equal).
	SQNR *float64 `json:"sqnr_db,omitempty"`
}

type LayerInput struct {
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

// Layers matches the layers of ga with those of gb (by value name, then by
// op family and shape in topological order), given every value each
// computed on one sample, and compares the matched pairs by tol. The
// report's runtimes are left for the caller to name.
func Layers(ga, gb *canon.Graph, valsA, valsB map[string]*canon.Tensor, tol Tolerance) *LayersReport {
	la, lb := layerValues(ga, valsA), layerValues(gb, valsB)
	pairs := matchLayers(la, lb)
	rep := &LayersReport{FirstDiff: -1, FirstBelow: -1}
	// Errors of A's values, for the inputs column; graph inputs are fed
	// identically to both.
	errOf := map[string]LayerInput{}
	for _, in := range ga.Inputs {
		errOf[in.Name] = LayerInput{Name: in.Name, OK: true, Kind: "input"}
	}
	inits := ga.InitializerIndex()
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
		row := LayerRow{NodeA: a.node.Name, OpA: a.node.Op.Kind(), ValueA: a.value, NodeB: b.node.Name, OpB: b.node.Op.Kind(),
			ValueB: b.value, MatchedBy: "structure", Result: res, SQNR: LayerSQNR(valsA[a.value], valsB[b.value])}
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
					e = LayerInput{Name: in, Kind: "unmatched", OK: true}
				}
				row.Inputs = append(row.Inputs, e)
			}
		}
		for _, n := range a.chain {
			for _, o := range n.Outputs {
				errOf[o] = LayerInput{Name: o, MaxAbs: res.MaxAbs, OK: res.OK, Kind: "layer"}
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
	return rep
}

// foldable ops can disappear into the op before them when a model is
// optimized: an identity at inference, and an affine map (BatchNorm, a
// constant scale or shift) into a conv or matmul. The op's traits say.
func foldable(n *canon.Node, g *canon.Graph, inits map[string]*canon.Tensor) bool {
	t := canon.TraitsOf(n.Op)
	if t.InferenceIdentity {
		return true
	}
	if t.Affine {
		for _, in := range n.Inputs {
			if inits[in] != nil || (g.Values.Get(in).Const != nil) {
				return true
			}
		}
	}
	return false
}

// familyOf groups ops that different importers spell differently (the
// op's Family trait: Linear and MatMul are both "matmul").
func familyOf(kind string) string {
	if d := canon.Lookup(kind); d != nil && d.Traits.Family != "" {
		return d.Traits.Family
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
