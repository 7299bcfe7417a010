package tfliteexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// foldLimit bounds the bytes of one folded result: a constant subgraph
// that builds a larger tensor is written as ops instead.
const foldLimit = 64 << 20

// folded returns g with every node whose result is known at conversion
// time computed once and stored as an initializer (a weight transposed by
// the exporter that made the model, pads computed from static shapes, a
// zero state built from a shape), inferred again: TFLite stores such
// results as buffers, and ops TFLite lacks often only build them.
func folded(g *canon.Graph) (*canon.Graph, error) {
	if err := g.Infer(); err != nil {
		return nil, err
	}
	isInput := map[string]bool{}
	for _, in := range g.Inputs {
		isInput[in.Name] = true
	}
	consts := map[string]*canon.Tensor{}
	for _, t := range g.Initializers {
		if !isInput[t.Name] {
			consts[t.Name] = t
		}
	}
	isOutput := map[string]bool{}
	for _, o := range g.Outputs {
		isOutput[o.Name] = true
	}
	var keep []*canon.Node
	var made []*canon.Tensor
	for _, n := range g.Nodes {
		var res []*canon.Tensor
		// A graph output stays the result of its op: the file computes
		// it (or the op is refused by name).
		out := false
		for _, o := range n.Outputs {
			out = out || isOutput[o]
		}
		if !out {
			res = foldNode(g, n, consts)
		}
		if res == nil {
			keep = append(keep, n)
			continue
		}
		for _, t := range res {
			consts[t.Name] = t
			made = append(made, t)
		}
	}
	live := liveNodes(keep, g.Outputs)
	if len(made) == 0 && len(live) == len(g.Nodes) {
		return g, nil
	}
	out := &canon.Graph{Name: g.Name, Inputs: g.Inputs, Outputs: g.Outputs, Nodes: live, Meta: g.Meta,
		Initializers: append(append([]*canon.Tensor{}, g.Initializers...), made...)}
	if err := out.Infer(); err != nil {
		return nil, err
	}
	return out, nil
}

// foldNode computes n when every input is a constant (or n is the Shape
// of a value of static shape), returning its outputs; nil when it cannot.
func foldNode(g *canon.Graph, n *canon.Node, consts map[string]*canon.Tensor) []*canon.Tensor {
	if len(n.Inputs) == 0 || len(n.Outputs) == 0 {
		return nil
	}
	sub := &canon.Graph{Name: "fold", Nodes: []*canon.Node{n}}
	if s, ok := n.Op.(*canon.ShapeOf); ok {
		shape, known := g.Values.Get(n.Inputs[0]).StaticShape()
		if !known {
			return nil
		}
		_ = s
		sub.Inputs = []canon.ValueInfo{g.Values.Get(n.Inputs[0])}
		return runFold(sub, n, map[string]*canon.Tensor{n.Inputs[0]: zeros(n.Inputs[0], g.Values.Get(n.Inputs[0]).DType, shape)}, g)
	}
	seen := map[string]bool{}
	for _, in := range n.Inputs {
		if in == "" || seen[in] {
			continue
		}
		seen[in] = true
		c := consts[in]
		if c == nil {
			if v := g.Values.Get(in); v.Const != nil {
				c = v.Const
			} else {
				return nil
			}
		}
		t := *c
		t.Name = in
		sub.Initializers = append(sub.Initializers, &t)
	}
	return runFold(sub, n, nil, g)
}

func runFold(sub *canon.Graph, n *canon.Node, feeds map[string]*canon.Tensor, g *canon.Graph) []*canon.Tensor {
	size := int64(0)
	for _, o := range n.Outputs {
		if o == "" {
			continue
		}
		v := g.Values.Get(o)
		s, known := v.StaticShape()
		if !known {
			return nil
		}
		size += canon.NumElements(s) * int64(v.DType.Size())
		sub.Outputs = append(sub.Outputs, canon.ValueInfo{Name: o, DType: v.DType, Shape: v.Shape, RankKnown: true})
	}
	if size > foldLimit || len(sub.Outputs) == 0 {
		return nil
	}
	res, err := interp.Run(sub, feeds)
	if err != nil {
		return nil // written as ops, or refused by name there
	}
	var out []*canon.Tensor
	for _, o := range sub.Outputs {
		t := res[o.Name]
		if t == nil {
			return nil
		}
		t.Name = o.Name
		out = append(out, t)
	}
	return out
}

// zeros is a placeholder input for a Shape node: only its shape is read.
func zeros(name string, dt canon.DType, shape []int64) *canon.Tensor {
	return &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: make([]byte, canon.NumElements(shape)*int64(dt.Size()))}
}

// liveNodes keeps the nodes the graph's outputs depend on: a result
// nothing reads (an LSTM's unused cell state) is not written.
func liveNodes(nodes []*canon.Node, outputs []canon.ValueInfo) []*canon.Node {
	need := map[string]bool{}
	for _, o := range outputs {
		need[o.Name] = true
	}
	keep := make([]bool, len(nodes))
	for i := len(nodes) - 1; i >= 0; i-- {
		for _, o := range nodes[i].Outputs {
			if o != "" && need[o] {
				keep[i] = true
			}
		}
		if keep[i] {
			for _, in := range nodes[i].Inputs {
				need[in] = true
			}
		}
	}
	var out []*canon.Node
	for i, n := range nodes {
		if keep[i] {
			out = append(out, n)
		}
	}
	return out
}
