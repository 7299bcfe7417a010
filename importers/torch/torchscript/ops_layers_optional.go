package torchscript

import "github.com/modelbridge/modelbridge/canon"

// markOptional marks the nodes emitted since from as computing a result
// the model may leave unread.
func (b *builder) markOptional(from int) {
	if b.optional == nil {
		b.optional = map[*canon.Node]bool{}
	}
	for _, n := range b.g.Nodes[from:] {
		b.optional[n] = true
	}
}

// pruneOptional drops optional nodes whose results no node and no graph
// output reads, repeatedly (a dropped node may leave its producer
// unread), and the constants only they read.
func (b *builder) pruneOptional() {
	if len(b.optional) == 0 {
		return
	}
	for {
		read := map[string]bool{}
		for _, o := range b.g.Outputs {
			read[o.Name] = true
		}
		for _, n := range b.g.Nodes {
			for _, in := range n.Inputs {
				read[in] = true
			}
		}
		kept := b.g.Nodes[:0]
		var dropped []*canon.Node
		for _, n := range b.g.Nodes {
			used := !b.optional[n]
			for _, o := range n.Outputs {
				used = used || read[o]
			}
			if used {
				kept = append(kept, n)
			} else {
				dropped = append(dropped, n)
			}
		}
		b.g.Nodes = kept
		if len(dropped) == 0 {
			return
		}
		b.dropUnreadConstants(dropped)
	}
}

// dropUnreadConstants removes the initializers that the dropped nodes read
// and nothing else does.
func (b *builder) dropUnreadConstants(dropped []*canon.Node) {
	candidates := map[string]bool{}
	for _, n := range dropped {
		for _, in := range n.Inputs {
			candidates[in] = true
		}
	}
	for _, n := range b.g.Nodes {
		for _, in := range n.Inputs {
			delete(candidates, in)
		}
	}
	for _, o := range b.g.Outputs {
		delete(candidates, o.Name)
	}
	if len(candidates) == 0 {
		return
	}
	kept := b.g.Initializers[:0]
	for _, t := range b.g.Initializers {
		if !candidates[t.Name] {
			kept = append(kept, t)
		}
	}
	b.g.Initializers = kept
}
