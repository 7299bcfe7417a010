package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
)

// writeExpansion writes node n as canon's expansion of it (the op's
// Decompose), each node of the expansion through the exporter's table:
// the fallback for a kind the table lacks, and the form of a kind below
// the opset of its ONNX op.
func (b *builder) writeExpansion(n *canon.Node) error {
	in := make([]canon.ValueInfo, len(n.Inputs))
	for i, name := range n.Inputs {
		if name != "" {
			in[i] = b.types.Get(name)
			in[i].Name = name
		}
	}
	if b.taken == nil {
		b.unique("") // fills the names already taken
	}
	x, err := canon.DecomposeNode(n, in, func(name string) bool { return b.taken[name] })
	if err != nil {
		return b.opError(n, "%v", err)
	}
	b.expanded = true
	rename := map[string]string{}
	for _, c := range x.Consts {
		t := *c
		rename[c.Name] = b.param(n, "const", &t)
		b.types.Set(rename[c.Name], canon.ValueInfo{Name: rename[c.Name], DType: c.DType, Shape: canon.DimsOf(c.Shape...), RankKnown: true, Const: c})
	}
	for _, m := range x.Nodes {
		for i, name := range m.Inputs {
			if r, ok := rename[name]; ok {
				m.Inputs[i] = r
			}
		}
		mi := make([]canon.ValueInfo, len(m.Inputs))
		for i, name := range m.Inputs {
			if name != "" {
				mi[i] = b.types.Get(name)
			}
		}
		outs, err := canon.InferNode(m, mi)
		if err != nil {
			return b.opError(n, "expansion: %v", err)
		}
		for i, o := range m.Outputs {
			b.taken[o] = true
			if _, known := b.types.Lookup(o); !known {
				b.types.Set(o, outs[i])
			}
		}
		b.taken[m.Name] = true
		if err := b.node(m); err != nil {
			return err
		}
	}
	return nil
}
