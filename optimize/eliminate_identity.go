package optimize

import "github.com/modelbridge/modelbridge/canon"

// eliminateIdentity removes the nodes that are the identity at inference
// (the InferenceIdentity trait: Identity, Dropout) whose other outputs,
// such as Dropout's mask, nobody reads.
func eliminateIdentity(g *canon.Graph) (bool, error) {
	ix := newIndex(g)
	dead := map[*canon.Node]bool{}
	for _, n := range g.Nodes {
		if !canon.TraitsOf(n.Op).InferenceIdentity || extraOutputUsed(ix, n) {
			continue
		}
		if len(n.Inputs) == 0 || n.Inputs[0] == "" || len(n.Outputs) == 0 || n.Outputs[0] == "" {
			continue
		}
		if canon.HasRuntimeParams(n) {
			continue // a Dropout whose training mode is known only when it runs
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

// extraOutputUsed reports whether an output of n beyond the first is read
// or is a graph output.
func extraOutputUsed(ix *index, n *canon.Node) bool {
	for _, o := range n.Outputs[min(1, len(n.Outputs)):] {
		if o != "" && (len(ix.consumers[o]) > 0 || ix.isOutput[o]) {
			return true
		}
	}
	return false
}
