package optimize

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// eliminateDead removes nodes none of whose outputs is read or is a graph
// output, and initializers that nothing reads. Initializers that give a
// graph input its default are kept with the input.
func eliminateDead(g *canon.Graph) (bool, error) {
	live := map[string]bool{}
	for _, o := range g.Outputs {
		live[o.Name] = true
	}
	keep := make([]bool, len(g.Nodes))
	removed := 0
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		used := false
		for _, o := range n.Outputs {
			if o != "" && live[o] {
				used = true
				break
			}
		}
		if !used {
			removed++
			continue
		}
		keep[i] = true
		for _, in := range n.Inputs {
			if in != "" {
				live[in] = true
			}
		}
	}
	if removed > 0 {
		kept := g.Nodes[:0:0]
		for i, n := range g.Nodes {
			if keep[i] {
				kept = append(kept, n)
			}
		}
		g.Nodes = kept
	}
	inputs := map[string]bool{}
	for _, in := range g.Inputs {
		inputs[in.Name] = true
	}
	before := len(g.Initializers)
	g.Initializers = slices.DeleteFunc(slices.Clone(g.Initializers), func(t *canon.Tensor) bool {
		return !live[t.Name] && !inputs[t.Name]
	})
	return removed > 0 || len(g.Initializers) != before, nil
}
