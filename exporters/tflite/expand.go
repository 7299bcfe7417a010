package tfliteexport

import (
	"github.com/modelbridge/modelbridge/canon"
)

// writtenDirectly reports whether node n is written by its writer rather
// than as canon's expansion of it: a kind without a writer is expanded
// when canon has an exact expansion (Attention, RotaryEmbedding), and the
// expansion's nodes go through the writers in turn (or are refused by
// name). A kind the lacks table lists is refused by its own name, not
// expanded into ops TFLite lacks too (Mish's Softplus, Trilu's Where).
func writtenDirectly(n *canon.Node, _ func(string) canon.ValueInfo) bool {
	if _, ok := writers[n.Op.Kind()]; ok {
		return true
	}
	if _, ok := lacks[n.Op.Kind()]; ok {
		return true
	}
	d := canon.DefOf(n.Op)
	return d == nil || d.Decompose == nil
}

// expandMissing replaces the nodes of kinds TFLite lacks by canon's
// expansion of them, where there is one.
func expandMissing(g *canon.Graph) (*canon.Graph, int, error) {
	return canon.Decompose(g, writtenDirectly)
}
