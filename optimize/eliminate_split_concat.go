package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
)

// Split and Concat along one axis undo each other. A Concat of every output
// of a Split, in order, along the Split's axis is the Split's input (a
// grouped-conv merge leaves this behind); a Split of a Concat along its
// axis into the Concat's parts gives back those parts.

// concatOfSplit returns the value a Concat node n equals when it rejoins
// a whole Split: the Split's input.
func concatOfSplit(g *canon.Graph, ix *index, n *canon.Node, op *canon.Concat) (string, bool) {
	if len(n.Inputs) < 2 {
		return "", false
	}
	p := ix.producer[n.Inputs[0]]
	if p == nil {
		return "", false
	}
	sp, ok := p.Op.(*canon.Split)
	if !ok || len(p.Outputs) != len(n.Inputs) || len(p.Inputs) == 0 {
		return "", false
	}
	for i, in := range n.Inputs {
		if in == "" || p.Outputs[i] != in {
			return "", false
		}
	}
	r, ok := rankOf(g, p.Inputs[0])
	if !ok || normAxis(sp.Axis, r) != normAxis(op.Axis, r) {
		return "", false
	}
	return p.Inputs[0], true
}

// splitOfConcat forwards each output of a Split node n that cuts a Concat
// back into its parts to the part itself, and reports whether every
// output was forwarded (the Split is then dead).
func splitOfConcat(g *canon.Graph, ix *index, n *canon.Node) bool {
	sp, ok := n.Op.(*canon.Split)
	if !ok || len(n.Inputs) == 0 || n.Inputs[0] == "" {
		return false
	}
	p := ix.producer[n.Inputs[0]]
	if p == nil {
		return false
	}
	cc, ok := p.Op.(*canon.Concat)
	if !ok || len(p.Inputs) != len(n.Outputs) {
		return false
	}
	r, ok := rankOf(g, n.Inputs[0])
	if !ok || normAxis(sp.Axis, r) != normAxis(cc.Axis, r) {
		return false
	}
	// Each piece must have exactly its part's shape (so the cut falls
	// where the parts were joined).
	for i, o := range n.Outputs {
		if o == "" {
			continue
		}
		if p.Inputs[i] == "" || !sameStaticShape(g, o, p.Inputs[i]) {
			return false
		}
	}
	all := true
	for i, o := range n.Outputs {
		if o == "" {
			continue
		}
		if !forward(ix, o, p.Inputs[i]) {
			all = false
		}
	}
	return all
}

func normAxis(a int64, rank int) int64 {
	if a < 0 {
		a += int64(rank)
	}
	return a
}
