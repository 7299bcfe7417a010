package optimize

import "github.com/modelbridge/modelbridge/canon"

// foldSequences turns a ConcatFromSequence whose sequence is made just
// before, and read by nothing else, into tensor ops: of a SequenceConstruct
// it is a Concat of the constructed tensors (each Unsqueezed first when
// the concatenation stacks along a new axis); of a SplitToSequence along
// the same axis it is the split tensor itself (an Identity, which
// eliminate_identity removes). The sequence's producer is then dead.
func foldSequences(g *canon.Graph) (bool, error) {
	ix := newIndex(g)
	nm := newNamer(g)
	var out []*canon.Node
	changed := false
	for _, n := range g.Nodes {
		cat, ok := n.Op.(*canon.ConcatFromSequence)
		if !ok || len(n.Inputs) != 1 || n.Inputs[0] == "" || len(n.Outputs) != 1 || !ix.onlyFeeds(n.Inputs[0], n) {
			out = append(out, n)
			continue
		}
		p := ix.producer[n.Inputs[0]]
		var repl []*canon.Node
		if p != nil {
			switch po := p.Op.(type) {
			case *canon.SequenceConstruct:
				repl = concatOfConstruct(nm, n, p, cat)
			case *canon.SplitToSequence:
				repl = concatOfSplitToSequence(g, n, p, po, cat)
			}
		}
		if repl == nil {
			out = append(out, n)
			continue
		}
		out = append(out, repl...)
		changed = true
	}
	g.Nodes = out
	return changed, nil
}

// concatOfConstruct is ConcatFromSequence n of SequenceConstruct p as a
// Concat (with an Unsqueeze per tensor for a new axis, which Unsqueeze
// counts from the end as ConcatFromSequence does).
func concatOfConstruct(nm *namer, n, p *canon.Node, cat *canon.ConcatFromSequence) []*canon.Node {
	parts := append([]string{}, p.Inputs...)
	var nodes []*canon.Node
	if cat.NewAxis {
		for i, x := range parts {
			u := nm.fresh(n.Outputs[0] + "_item")
			nodes = append(nodes, &canon.Node{Name: nm.fresh(n.Name + "_unsqueeze"), Op: &canon.Unsqueeze{Axes: []int64{cat.Axis}},
				Inputs: []string{x}, Outputs: []string{u}})
			parts[i] = u
		}
	}
	return append(nodes, &canon.Node{Name: n.Name, Op: &canon.Concat{Axis: cat.Axis}, Inputs: parts, Outputs: n.Outputs})
}

// concatOfSplitToSequence is ConcatFromSequence n of SplitToSequence p as
// an Identity of p's input, when the pieces are rejoined along the axis
// they were cut from (stacked back, for slices whose axis was dropped) and
// that axis is known not to be empty (an empty sequence would make the
// concatenation fail, not give the tensor back).
func concatOfSplitToSequence(g *canon.Graph, n, p *canon.Node, split *canon.SplitToSequence, cat *canon.ConcatFromSequence) []*canon.Node {
	x := p.Inputs[0]
	shape, ok := staticShapeOf(g, x)
	if !ok {
		return nil
	}
	r := len(shape)
	a, ok := normalized(split.Axis, r)
	if !ok || shape[a] == 0 {
		return nil
	}
	dropped := (len(p.Inputs) < 2 || p.Inputs[1] == "") && !split.KeepDims
	if dropped != cat.NewAxis {
		return nil
	}
	b, ok := normalized(cat.Axis, r) // a new axis counts in the rank of x too
	if !ok || a != b {
		return nil
	}
	return []*canon.Node{{Name: n.Name, Op: &canon.Identity{}, Inputs: []string{x}, Outputs: n.Outputs}}
}

func staticShapeOf(g *canon.Graph, name string) ([]int64, bool) {
	v, ok := g.Values.Lookup(name)
	if !ok {
		return nil, false
	}
	return v.StaticShape()
}

func normalized(a int64, rank int) (int64, bool) {
	if a < -int64(rank) || a >= int64(rank) {
		return 0, false
	}
	if a < 0 {
		a += int64(rank)
	}
	return a, true
}

// makesNonTensor reports a node with a sequence or optional output, which
// constant folding leaves computed.
func makesNonTensor(g *canon.Graph, n *canon.Node) bool {
	for _, o := range n.Outputs {
		if o != "" && !g.Values.Get(o).IsTensor() {
			return true
		}
	}
	return false
}
