package onnxexport

import "github.com/modelbridge/modelbridge/canon"

// graphOutputs is the graph's output list as the file declares it. A value
// listed again (a Caffe Split whose tops are both outputs) is declared
// again under a name of its own, computed by an Identity, so that every
// declared output has one name and the list keeps its order and length.
func (b *builder) graphOutputs(g *canon.Graph) []canon.ValueInfo {
	seen := make(map[string]bool, len(g.Outputs))
	outs := make([]canon.ValueInfo, len(g.Outputs))
	for i, o := range g.Outputs {
		outs[i] = o
		if !seen[o.Name] {
			seen[o.Name] = true
			continue
		}
		name := b.unique(o.Name)
		b.emit(name, "Identity", []string{o.Name}, []string{name})
		outs[i].Name = name
		if t, ok := b.types.Lookup(o.Name); ok {
			t.Name = name
			b.types.Set(name, t)
		}
		if v, ok := b.inferred.inferred(o.Name); ok {
			v.Name = name
			if b.inferred.shadowed == nil {
				b.inferred.shadowed = map[string]*canon.ValueInfo{}
			}
			b.inferred.shadowed[name] = &v // a new name: nothing to shadow
		}
	}
	return outs
}
