package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// Import-time values: traced code sometimes computes a size from the input's
// (static) size with tensor arithmetic, as F.interpolate with
// recompute_scale_factor does (int(floor(size · scale))). When every value
// such a scalar depends on is a constant, it is computed now, by the
// interpreter on the few nodes involved, so that the size is static.

// constValueNodes bounds the nodes an import-time value may need: size
// arithmetic takes a handful.
const constValueNodes = 32

// importTimeValue computes t when it is a small value of the current graph
// computed from constants only, without a random draw.
func (b *builder) importTimeValue(t *tensorVal) (*canon.Tensor, bool) {
	if t.konst != nil {
		return t.konst, true
	}
	if t.name == "" || b.subDepth > 0 {
		return nil, false
	}
	producer := map[string]*canon.Node{}
	for _, n := range b.g.Nodes {
		for _, o := range n.Outputs {
			if o != "" {
				producer[o] = n
			}
		}
	}
	need := map[*canon.Node]bool{}
	leaves := map[string]*canon.Tensor{}
	var walk func(name string) bool
	walk = func(name string) bool {
		if vi, ok := b.vals[name]; ok && vi.Const != nil && producer[name] == nil {
			leaves[name] = vi.Const
			return true
		}
		n := producer[name]
		if n == nil || canon.Draws(n) || canon.HasSubgraphs(n.Op) {
			return false
		}
		if need[n] {
			return true
		}
		if len(need) >= constValueNodes {
			return false
		}
		need[n] = true
		for _, in := range n.Inputs {
			if in != "" && !walk(in) {
				return false
			}
		}
		return true
	}
	if !walk(t.name) {
		return nil, false
	}
	for name := range need {
		for _, o := range name.Outputs {
			if s, ok := b.vals[o].StaticShape(); !ok || canon.NumElements(s) > maxConstValueElems {
				return nil, false
			}
		}
	}
	g := &canon.Graph{Name: "import-time value"}
	for _, n := range b.g.Nodes { // in graph order
		if need[n] {
			g.Nodes = append(g.Nodes, n)
		}
	}
	for name, k := range leaves {
		c := *k
		c.Name = name
		g.Initializers = append(g.Initializers, &c)
	}
	g.Outputs = []canon.ValueInfo{{Name: t.name}}
	if g.Validate() != nil {
		return nil, false
	}
	out, err := interp.Run(g, nil)
	if err != nil || out[t.name] == nil {
		return nil, false
	}
	return out[t.name], true
}

// maxConstValueElems bounds each value an import-time computation makes.
const maxConstValueElems = 64
