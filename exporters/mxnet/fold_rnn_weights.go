package mxnetexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// MXNet's RNN takes a recurrent layer's weights packed into one parameter
// vector, so W, R and B must be constants. PyTorch's ONNX export computes
// them from the module's weights with Slice, Concat and Unsqueeze nodes
// (its gate reordering); such values, computed from constants only, are
// computed here, by the interpreter, and the nodes that computed them are
// dropped when nothing else reads them.

// maxFoldedNodes bounds the nodes one folded weight may need.
const maxFoldedNodes = 256

// foldRecurrentWeights returns g, or a copy in which the computed W, R and B
// inputs of LSTM, GRU and RNN nodes are initializers.
func foldRecurrentWeights(g *canon.Graph) (*canon.Graph, error) {
	producer := map[string]*canon.Node{}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o != "" {
				producer[o] = n
			}
		}
	}
	inits := map[string]*canon.Tensor{}
	for _, t := range g.Initializers {
		inits[t.Name] = t
	}
	type fold struct {
		node *canon.Node
		slot int
	}
	var folds []fold
	for _, n := range g.Nodes {
		switch n.Op.(type) {
		case *canon.LSTM, *canon.GRU, *canon.RNN:
		default:
			continue
		}
		for _, slot := range []int{canon.RecW, canon.RecR, canon.RecB} {
			if slot >= len(n.Inputs) || n.Inputs[slot] == "" || inits[n.Inputs[slot]] != nil {
				continue
			}
			if p := producer[n.Inputs[slot]]; p != nil {
				if _, isConst := p.Op.(*canon.Constant); isConst {
					continue
				}
			}
			folds = append(folds, fold{n, slot})
		}
	}
	if len(folds) == 0 {
		return g, nil
	}
	out := *g
	out.Nodes = append([]*canon.Node(nil), g.Nodes...)
	out.Initializers = append([]*canon.Tensor(nil), g.Initializers...)
	replaced := map[*canon.Node]*canon.Node{}
	for _, f := range folds {
		name := f.node.Inputs[f.slot]
		t, ok := computedFromConstants(g, producer, inits, name)
		if !ok {
			continue // the writer refuses it, naming the input
		}
		w := *t
		w.Name = name + "_folded"
		for used(&out, w.Name) {
			w.Name += "_"
		}
		out.Initializers = append(out.Initializers, &w)
		nn := replaced[f.node]
		if nn == nil {
			c := *f.node
			c.Inputs = append([]string(nil), f.node.Inputs...)
			nn = &c
			replaced[f.node] = nn
		}
		nn.Inputs[f.slot] = w.Name
	}
	if len(replaced) == 0 {
		return g, nil
	}
	for i, n := range out.Nodes {
		if r := replaced[n]; r != nil {
			out.Nodes[i] = r
		}
	}
	out.Nodes = dropUnread(&out)
	out.Values = nil
	canon.AssignLayouts(&out) // a folded weight gets the layout its reader needs
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("folding recurrent weights: %w", err)
	}
	return &out, nil
}

// computedFromConstants runs the nodes value name depends on when they read
// only initializers and Constant nodes.
func computedFromConstants(g *canon.Graph, producer map[string]*canon.Node, inits map[string]*canon.Tensor, name string) (*canon.Tensor, bool) {
	need := map[*canon.Node]bool{}
	leaves := map[string]*canon.Tensor{}
	var walk func(v string) bool
	walk = func(v string) bool {
		if t := inits[v]; t != nil {
			leaves[v] = t
			return true
		}
		n := producer[v]
		if n == nil || canon.Draws(n) || canon.HasSubgraphs(n.Op) || len(need) >= maxFoldedNodes {
			return false
		}
		if need[n] {
			return true
		}
		need[n] = true
		for _, in := range n.Inputs {
			if in != "" && !walk(in) {
				return false
			}
		}
		return true
	}
	if !walk(name) {
		return nil, false
	}
	sub := &canon.Graph{Name: "recurrent weights"}
	for _, n := range g.Nodes {
		if need[n] {
			sub.Nodes = append(sub.Nodes, n)
		}
	}
	for _, t := range leaves {
		sub.Initializers = append(sub.Initializers, t)
	}
	sub.Outputs = []canon.ValueInfo{{Name: name}}
	if sub.Validate() != nil {
		return nil, false
	}
	res, err := interp.Run(sub, nil)
	if err != nil || res[name] == nil {
		return nil, false
	}
	return res[name], true
}

// used tells whether name is a value of g.
func used(g *canon.Graph, name string) bool {
	for _, t := range g.Initializers {
		if t.Name == name {
			return true
		}
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o == name {
				return true
			}
		}
	}
	for _, in := range g.Inputs {
		if in.Name == name {
			return true
		}
	}
	return false
}

// dropUnread removes the nodes (other than those owning subgraphs) whose
// outputs nothing reads, repeatedly: the weight arithmetic left behind.
func dropUnread(g *canon.Graph) []*canon.Node {
	nodes := g.Nodes
	for {
		read := map[string]bool{}
		for _, n := range nodes {
			for _, in := range n.Inputs {
				read[in] = true
			}
			if o, ok := n.Op.(canon.SubgraphOwner); ok {
				for _, c := range o.CaptureNames() {
					read[c] = true
				}
			}
		}
		for _, o := range g.Outputs {
			read[o.Name] = true
		}
		var kept []*canon.Node
		for _, n := range nodes {
			live := canon.HasSubgraphs(n.Op) || len(n.Outputs) == 0
			for _, o := range n.Outputs {
				if o != "" && read[o] {
					live = true
				}
			}
			if live {
				kept = append(kept, n)
			}
		}
		if len(kept) == len(nodes) {
			return kept
		}
		nodes = kept
	}
}
