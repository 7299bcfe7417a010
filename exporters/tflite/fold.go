package tfliteexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// foldLimit bounds the bytes of one folded result: a constant subgraph
// that builds a larger tensor is written as ops instead.
const foldLimit = 64 << 20

// foldConstants computes, once, every node whose inputs are all known at
// conversion time (a weight transposed by the exporter that made the
// model, a zero state built from a shape): TFLite stores the result as a
// buffer, and ops TFLite lacks often only build such constants.
func (e *exporter) foldConstants() {
	for _, n := range e.g.Nodes {
		if len(n.Outputs) == 0 || e.allConst(n) || !foldable(n) {
			continue
		}
		ok := len(n.Inputs) > 0
		sub := &canon.Graph{Name: "fold"}
		seen := map[string]bool{}
		for _, in := range n.Inputs {
			if in == "" || seen[in] {
				continue
			}
			seen[in] = true
			c := e.constOf(in)
			if c == nil {
				ok = false
				break
			}
			t := *c
			t.Name = in
			sub.Initializers = append(sub.Initializers, &t)
		}
		if !ok {
			continue
		}
		size := int64(0)
		for _, o := range n.Outputs {
			if o == "" {
				continue
			}
			v := e.vals[o]
			s, known := v.StaticShape()
			if !known {
				ok = false
				break
			}
			size += canon.NumElements(s) * int64(v.DType.Size())
			sub.Outputs = append(sub.Outputs, canon.ValueInfo{Name: o, DType: v.DType, Shape: v.Shape, RankKnown: true})
		}
		if !ok || size > foldLimit || len(sub.Outputs) == 0 {
			continue
		}
		sub.Nodes = []*canon.Node{n}
		res, err := interp.Run(sub, nil)
		if err != nil {
			continue // written as ops, or refused by name there
		}
		for _, o := range sub.Outputs {
			if t := res[o.Name]; t != nil {
				t.Name = o.Name
				e.consts[o.Name] = t
			}
		}
	}
}

// foldable excludes ops whose result is not a function of their inputs
// (random generators take no inputs, so they are never folded here).
func foldable(n *canon.Node) bool { return len(n.Inputs) > 0 }
