package optimize

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// sharedWith names the other nodes that read weight w of node p: under the
// same name, or under another name of the same tensor (canon.SameData). A
// pass that rewrites w for p alone must give p its own copy and leave the
// shared tensor to them.
func sharedWith(ix *index, p *canon.Node, w string) []*canon.Node {
	t := ix.constant(w)
	var others []*canon.Node
	seen := map[*canon.Node]bool{p: true}
	for _, init := range ix.g.Initializers {
		if init.Name != w && (t == nil || !canon.SameData(init, t)) {
			continue
		}
		for _, c := range ix.consumers[init.Name] {
			if !seen[c] {
				seen[c] = true
				others = append(others, c)
			}
		}
	}
	return others
}

// noteCopied tells the user that a pass gave node p its own copy of the
// shared weight w, read also by others: the model now holds both.
func noteCopied(g *canon.Graph, pass string, p *canon.Node, w *canon.Tensor, others []*canon.Node) {
	names := ""
	for i, o := range others {
		if i == 3 {
			names += fmt.Sprintf(" and %d more", len(others)-3)
			break
		}
		if i > 0 {
			names += ", "
		}
		names += fmt.Sprintf("%q", o.Name)
	}
	g.Meta.Notes = append(g.Meta.Notes, fmt.Sprintf("%s: weight %q of node %q is shared with node %s, so %q got its own rewritten copy (%d more values)",
		pass, w.Name, p.Name, names, p.Name, w.NumElements()))
}

// paramUnique reports whether an initializer counts as a weight of its
// own: a second name of a shared tensor does not.
func paramUnique(g *canon.Graph) func(*canon.Tensor) bool {
	alias := g.SharedNames()
	return func(t *canon.Tensor) bool {
		_, second := alias[t.Name]
		return !second
	}
}

// unitScale reports whether a per-channel scale is all ones: the weight it
// would rewrite stays as it is.
func unitScale(s []float64) bool {
	for _, v := range s {
		if v != 1 {
			return false
		}
	}
	return true
}
