package canon

import (
	"fmt"
	"strconv"
)

// ToNHWC and FromNHWC are the Transpose permutations between a 4-D value
// in canonical (NCHW) order and the same value channels-last.
var (
	ToNHWC   = []int64{0, 2, 3, 1}
	FromNHWC = []int64{0, 3, 1, 2}
)

// ChannelsLastIO returns a copy of g whose 4-D inputs and outputs are
// declared channels-last (NHWC) under their own names: one Transpose after
// each such input brings it to the NCHW value the graph computes on, and
// one before each such output. An output that is itself a graph input is
// passed through unchanged. g is not modified; the copy shares its tensors.
// It returns how many Transpose nodes were added.
func ChannelsLastIO(g *Graph) (*Graph, int, error) {
	out := *g
	out.Values = nil
	out.Nodes = make([]*Node, len(g.Nodes))
	for i, n := range g.Nodes {
		c := *n
		c.Inputs = append([]string(nil), n.Inputs...)
		c.Outputs = append([]string(nil), n.Outputs...)
		out.Nodes[i] = &c
	}
	out.Inputs = append([]ValueInfo(nil), g.Inputs...)
	out.Outputs = append([]ValueInfo(nil), g.Outputs...)
	out.Initializers = append([]*Tensor(nil), g.Initializers...)
	names := usedNames(g)
	fresh := func(base string) string {
		name := base
		for k := 2; names[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		names[name] = true
		return name
	}
	isInput := map[string]bool{}
	moved := map[string]ValueInfo{}
	var pre, post []*Node
	for i, in := range out.Inputs {
		isInput[in.Name] = true
		if !in.RankKnown || len(in.Shape) != 4 || out.Initializer(in.Name) != nil {
			continue
		}
		inner := fresh(in.Name + "_nchw")
		for _, n := range out.Nodes {
			replaceAll(n.Inputs, in.Name, inner)
		}
		out.Inputs[i].Shape = permuteDims(in.Shape, ToNHWC)
		moved[in.Name] = out.Inputs[i]
		pre = append(pre, &Node{Name: fresh(in.Name + "_to_nchw"), Op: &Transpose{Perm: FromNHWC}, Inputs: []string{in.Name}, Outputs: []string{inner}})
	}
	vals := g.Values
	if vals == nil {
		// Output shapes may be known only by inference.
		cp := *g
		cp.Outputs = append([]ValueInfo(nil), g.Outputs...)
		if err := cp.Infer(); err == nil {
			vals = cp.Values
		}
	}
	done := map[string]ValueInfo{}
	for i, o := range out.Outputs {
		if v, ok := done[o.Name]; ok {
			out.Outputs[i] = v // listed twice: transposed once
			continue
		}
		if isInput[o.Name] {
			// A passed-through input is already channels-last.
			if nhwcIn, ok := moved[o.Name]; ok {
				o.Shape, o.RankKnown = nhwcIn.Shape, true
				out.Outputs[i] = o
			}
			continue
		}
		if !o.RankKnown {
			if v, ok := vals.Lookup(o.Name); ok {
				o.Shape, o.RankKnown = v.Shape, v.RankKnown
			}
		}
		if !o.RankKnown || len(o.Shape) != 4 {
			continue
		}
		inner := fresh(o.Name + "_nchw")
		renamed := false
		for _, n := range out.Nodes {
			replaceAll(n.Inputs, o.Name, inner)
			renamed = replaceAll(n.Outputs, o.Name, inner) || renamed
		}
		for k, t := range out.Initializers {
			if t.Name == o.Name {
				c := *t
				c.Name = inner
				out.Initializers[k] = &c
				renamed = true
			}
		}
		if !renamed {
			return nil, 0, fmt.Errorf("output %q: no node or initializer produces it", o.Name)
		}
		o.Shape = permuteDims(o.Shape, ToNHWC)
		out.Outputs[i] = o
		done[o.Name] = o
		post = append(post, &Node{Name: fresh(o.Name + "_to_nhwc"), Op: &Transpose{Perm: ToNHWC}, Inputs: []string{inner}, Outputs: []string{o.Name}})
	}
	out.Nodes = append(append(pre, out.Nodes...), post...)
	return &out, len(pre) + len(post), nil
}

// usedNames lists every value and node name of g.
func usedNames(g *Graph) map[string]bool {
	names := map[string]bool{}
	for _, v := range g.Inputs {
		names[v.Name] = true
	}
	for _, v := range g.Outputs {
		names[v.Name] = true
	}
	for _, t := range g.Initializers {
		names[t.Name] = true
	}
	for _, n := range g.Nodes {
		names[n.Name] = true
		for _, s := range n.Inputs {
			names[s] = true
		}
		for _, s := range n.Outputs {
			names[s] = true
		}
	}
	return names
}

// replaceAll renames old to new in list, reporting whether it was there.
func replaceAll(list []string, old, new string) bool {
	found := false
	for i, s := range list {
		if s == old {
			list[i] = new
			found = true
		}
	}
	return found
}

func permuteDims(s []Dim, perm []int64) []Dim {
	out := make([]Dim, len(perm))
	for i, p := range perm {
		out[i] = s[p]
	}
	return out
}
