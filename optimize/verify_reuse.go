package optimize

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// verifyPlan is how Verify runs the two graphs without computing twice
// what the optimizer left alone: the original graph, with the values the
// optimized graph reuses as extra outputs, and only the nodes of the
// optimized graph that compute something differently, fed those values.
type verifyPlan struct {
	orig *canon.Graph
	// opt is nil when every output of the optimized graph is computed by
	// the original's own nodes: the two graphs are equal by construction.
	opt *canon.Graph
	// cut maps each input opt is given in place of a reused node's output
	// to the value of orig that holds it.
	cut map[string]string
}

// planVerify finds what orig and opt share (see sharedValues) and cuts it
// out of opt.
func planVerify(orig, opt *canon.Graph) verifyPlan {
	from := sharedValues(orig, opt)
	plan := verifyPlan{orig: orig, cut: map[string]string{}}
	if everyOutputShared(orig, opt, from) {
		return plan
	}
	reused := map[string]bool{} // outputs of the nodes opt need not run
	var kept []*canon.Node
	for _, n := range opt.Nodes {
		if nodeShared(n, from) {
			for _, o := range n.Outputs {
				reused[o] = o != ""
			}
			continue
		}
		kept = append(kept, n)
	}
	needed := func(v string) {
		if reused[v] {
			plan.cut[v] = from[v]
		}
	}
	for _, n := range kept {
		for _, in := range n.Inputs {
			needed(in)
		}
	}
	for _, o := range opt.Outputs {
		needed(o.Name)
	}
	r := *opt
	r.Nodes = kept
	r.Inputs = slices.Clone(opt.Inputs)
	o := *orig
	o.Outputs = slices.Clone(orig.Outputs)
	for _, v := range slices.Sorted(maps.Keys(plan.cut)) {
		r.Inputs = append(r.Inputs, canon.ValueInfo{Name: v})
		if !slices.ContainsFunc(o.Outputs, func(vi canon.ValueInfo) bool { return vi.Name == plan.cut[v] }) {
			o.Outputs = append(o.Outputs, canon.ValueInfo{Name: plan.cut[v]})
		}
	}
	plan.orig, plan.opt = &o, &r
	return plan
}

// optInputs is what the reduced optimized graph is given for one sample:
// the graph inputs and, for each cut value, the original's result.
func (p verifyPlan) optInputs(inputs, want map[string]*canon.Tensor) (map[string]*canon.Tensor, error) {
	if len(p.cut) == 0 {
		return inputs, nil
	}
	in := make(map[string]*canon.Tensor, len(inputs)+len(p.cut))
	for k, v := range inputs {
		in[k] = v
	}
	for v, src := range p.cut {
		t := want[src]
		if t == nil {
			return nil, fmt.Errorf("the original graph did not compute %q", src)
		}
		in[v] = t
	}
	return in, nil
}

// everyOutputShared reports that each output of opt is the original's
// output of the same name, computed the same way.
func everyOutputShared(orig, opt *canon.Graph, from map[string]string) bool {
	for i, o := range opt.Outputs {
		if from[o.Name] != o.Name || i >= len(orig.Outputs) || orig.Outputs[i].Name != o.Name || orig.Outputs[i].DType != o.DType {
			return false
		}
	}
	return true
}

// nodeShared reports a node (other than a Constant, which costs nothing to
// keep) whose every output is computed the same way in the original.
func nodeShared(n *canon.Node, from map[string]string) bool {
	if _, ok := n.Op.(*canon.Constant); ok || n.Op == nil {
		return false
	}
	for _, o := range n.Outputs {
		if _, ok := from[o]; o != "" && !ok {
			return false
		}
	}
	return true
}

// sharedValues maps each value of opt that is computed exactly as a value
// of orig to that value's name in orig: a graph input of the same name and
// dtype, an initializer with the very same data, or the output of a node
// with the same op and attributes over shared values, declared with the
// same dtype. The interpreter computes such a value identically in both
// graphs, so it needs computing once.
func sharedValues(orig, opt *canon.Graph) map[string]string {
	from := map[string]string{}
	origDefaults, optDefaults := initializerNames(orig), initializerNames(opt)
	origInputs := map[string]canon.DType{}
	for _, in := range orig.Inputs {
		origInputs[in.Name] = in.DType
	}
	for _, in := range opt.Inputs {
		// An input with a default may be left out, and the defaults differ.
		if dt, ok := origInputs[in.Name]; ok && dt == in.DType && !origDefaults[in.Name] && !optDefaults[in.Name] {
			from[in.Name] = in.Name
		}
	}
	isInput := func(g *canon.Graph, name string) bool {
		return slices.ContainsFunc(g.Inputs, func(v canon.ValueInfo) bool { return v.Name == name })
	}
	// Initializers with the same data are one value: orig's are named by
	// the first of them (same), opt's by orig's name for it (from).
	byData := map[string]string{}
	same := map[string]string{}
	for _, t := range orig.Initializers {
		if isInput(orig, t.Name) {
			continue
		}
		k := dataKey(t)
		if _, ok := byData[k]; !ok {
			byData[k] = t.Name
		}
		same[t.Name] = byData[k]
	}
	for _, t := range opt.Initializers {
		if name, ok := byData[dataKey(t)]; ok && !isInput(opt, t.Name) {
			from[t.Name] = name
		}
	}
	byInputs := map[string][]*canon.Node{}
	for _, n := range orig.Nodes {
		if n == nil || n.Op == nil {
			continue
		}
		ins := slices.Clone(n.Inputs)
		for i, v := range ins {
			if s, ok := same[v]; ok {
				ins[i] = s
			}
		}
		k := nodeKey(n.Op.Kind(), ins)
		byInputs[k] = append(byInputs[k], n)
	}
	for _, n := range opt.Nodes {
		if n == nil || n.Op == nil {
			continue
		}
		ins, ok := mapNames(n.Inputs, from)
		if !ok {
			continue
		}
		for _, m := range byInputs[nodeKey(n.Op.Kind(), ins)] {
			if sameComputation(orig, opt, m, n) {
				for k, o := range n.Outputs {
					if o != "" {
						from[o] = m.Outputs[k]
					}
				}
				break
			}
		}
	}
	return from
}

func initializerNames(g *canon.Graph) map[string]bool {
	names := make(map[string]bool, len(g.Initializers))
	for _, t := range g.Initializers {
		names[t.Name] = true
	}
	return names
}

// dataKey identifies an initializer by its data (the optimizer's copies
// share the original's), dtype, shape and layout.
func dataKey(t *canon.Tensor) string {
	var p *byte
	if len(t.Data) > 0 {
		p = &t.Data[0]
	}
	return fmt.Sprintf("%p/%d/%s/%v/%v", p, len(t.Data), t.DType, t.Shape, t.Layout)
}

func nodeKey(kind string, inputs []string) string {
	return fmt.Sprintf("%s%q", kind, inputs)
}

// mapNames renames values by from ("" stays absent); ok is false when one
// has no counterpart.
func mapNames(names []string, from map[string]string) ([]string, bool) {
	out := make([]string, len(names))
	for i, v := range names {
		if v == "" {
			continue
		}
		m, ok := from[v]
		if !ok {
			return nil, false
		}
		out[i] = m
	}
	return out, true
}

// sameComputation reports that node n of opt computes what node m of orig
// does, given the same inputs: same op type and attributes (an attribute
// that cannot be compared, such as a NaN, counts as different) and the
// same outputs present, declared with no two different dtypes.
func sameComputation(orig, opt *canon.Graph, m, n *canon.Node) bool {
	if canon.Draws(m) || canon.Draws(n) {
		return false // two draws are two samples, never one value
	}
	if reflect.TypeOf(m.Op) != reflect.TypeOf(n.Op) || !reflect.DeepEqual(m.Op, n.Op) || len(m.Outputs) != len(n.Outputs) {
		return false
	}
	for k := range m.Outputs {
		if (m.Outputs[k] == "") != (n.Outputs[k] == "") {
			return false
		}
		// A value not declared is computed in its inputs' dtype, which
		// is what inference declares: only two declarations can differ.
		dm, dn := declaredDType(orig, m.Outputs[k]), declaredDType(opt, n.Outputs[k])
		if dm != dn && dm != canon.Undefined && dn != canon.Undefined {
			return false
		}
	}
	return true
}

func declaredDType(g *canon.Graph, name string) canon.DType {
	if v, ok := g.Values.Lookup(name); ok && name != "" {
		return v.DType
	}
	return canon.Undefined
}
