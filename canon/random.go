package canon

// Draws: what depends on a random sampling node (a kind with the
// Nondeterministic trait), for the passes and comparisons that must not
// treat such values as functions of the graph's inputs.

// Draws reports whether node n samples: its kind is nondeterministic, or
// one of its subgraphs holds a node that samples.
func Draws(n *Node) bool {
	if IsNondeterministic(n.Op) {
		return true
	}
	if o, ok := n.Op.(SubgraphOwner); ok {
		for _, s := range o.Subgraphs() {
			if s.Graph != nil && GraphDraws(s.Graph) {
				return true
			}
		}
	}
	return false
}

// GraphDraws reports whether any node of g (or of its subgraphs) samples.
func GraphDraws(g *Graph) bool {
	for _, n := range g.Nodes {
		if Draws(n) {
			return true
		}
	}
	return false
}

// DrawnValues is the set of g's values computed from a draw: the outputs of
// nodes that sample and of every node downstream of one. Graph outputs in
// it differ from run to run; comparisons check them by shape and dtype.
func DrawnValues(g *Graph) map[string]bool {
	drawn := map[string]bool{}
	for _, n := range g.Nodes {
		d := Draws(n)
		for _, in := range n.Inputs {
			if in != "" && drawn[in] {
				d = true
			}
		}
		if d {
			for _, o := range n.Outputs {
				if o != "" {
					drawn[o] = true
				}
			}
		}
	}
	return drawn
}

// DrawnOutputs lists, per graph output of g, whether it is computed from a
// draw.
func DrawnOutputs(g *Graph) []bool {
	drawn := DrawnValues(g)
	out := make([]bool, len(g.Outputs))
	for i, o := range g.Outputs {
		out[i] = drawn[o.Name]
	}
	return out
}
