package optimize

import "github.com/modelbridge/modelbridge/canon"

// eliminateIdentity removes Identity nodes and Dropout nodes (the identity
// at inference) whose mask output nobody reads.
func eliminateIdentity(g *canon.Graph) (bool, error) {
	ix := newIndex(g)
	dead := map[*canon.Node]bool{}
	for _, n := range g.Nodes {
		switch n.Op.(type) {
		case *canon.Identity:
		case *canon.Dropout:
			if len(n.Outputs) > 1 && n.Outputs[1] != "" && (len(ix.consumers[n.Outputs[1]]) > 0 || ix.isOutput[n.Outputs[1]]) {
				continue // the mask is used
			}
		default:
			continue
		}
		if len(n.Inputs) == 0 || n.Inputs[0] == "" || len(n.Outputs) == 0 || n.Outputs[0] == "" {
			continue
		}
		if forward(ix, n.Outputs[0], n.Inputs[0]) {
			dead[n] = true
			// forward may have renamed values: refresh the lookups.
			ix = newIndex(g)
		}
	}
	removeNodes(g, dead)
	return len(dead) > 0, nil
}
