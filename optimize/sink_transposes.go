package optimize

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// sinkTransposes is a transpose optimizer in the style of TASO and ONNX
// Runtime's: each Transpose is pushed down through the ops that can run on
// untransposed data — elementwise ops (every kind with the Elementwise
// trait; an operand a broadcasting one such as Add or PRelu takes from
// elsewhere is a constant, which is stored permuted, or carries the same
// Transpose, which is dropped), Concat and Split (axis remapped), Softmax
// (axis remapped), ReduceMean (axes remapped) and Pad with attribute pads
// (pads permuted) —
// until it meets a Transpose it cancels or merges with, or an op it cannot
// cross, where it is put back. A root is only moved when the whole move
// leaves fewer Transpose nodes (or as many, moving fewer elements), so the
// pass never adds one; fan-out is handled by moving every branch at once.
// This collapses the NHWC wrappers tf2onnx puts around every conv.
func sinkTransposes(g *canon.Graph) (bool, error) {
	changed := false
	// Each move removes a Transpose or shrinks one, so this ends; the
	// bound is a guard, not a limit a real graph reaches.
	for round := 0; round <= len(g.Nodes)+1; round++ {
		if err := g.Infer(); err != nil {
			return changed, err
		}
		moved := false
		ix := newIndex(g)
		for _, n := range slices.Clone(g.Nodes) {
			if _, ok := n.Op.(*canon.Transpose); !ok || !slices.Contains(g.Nodes, n) {
				continue
			}
			sp := planSink(ix, n)
			if sp == nil {
				continue
			}
			if err := applySink(g, sp); err != nil {
				return changed, fmt.Errorf("%s: %w", nodeRef(n), err)
			}
			changed, moved = true, true
			if err := g.Infer(); err != nil {
				return changed, err
			}
			ix = newIndex(g)
		}
		if !moved {
			break
		}
	}
	if removeIdentityTransposes(g) {
		changed = true
	}
	return changed, nil
}

// applySink rewrites g according to the plan.
func applySink(g *canon.Graph, sp *sinkPlan) error {
	ix := sp.ix
	nm := newNamer(g)
	y, x := sp.root.Outputs[0], sp.root.Inputs[0]
	newName := map[string]string{y: x}
	for _, v := range sp.values[1:] {
		newName[v] = nm.fresh(v + "_untransposed")
	}
	// Decisions that depend on the graph before the edit.
	need := map[string]bool{}
	for _, v := range sp.values {
		need[v] = sp.needsTranspose(v)
	}
	type absorbed struct {
		c    *canon.Node
		v    string
		perm []int64
	}
	var absorb []absorbed
	for _, v := range sp.values {
		for _, c := range sp.uniqueConsumers(v) {
			if comp, ok := sp.absorbable(c, v); ok && !sp.inS[c] {
				absorb = append(absorb, absorbed{c, v, comp})
			}
		}
	}
	untransposed := map[string]string{}
	var extra []*canon.Node
	external := func(w string, p []int64) (string, error) {
		key := permKey(w, p)
		if u, ok := untransposed[key]; ok {
			return u, nil
		}
		var u string
		switch k, tn := sp.classify(w, p); k {
		case extAsIs:
			u = w
		case extConst:
			t, ok := permuteConstant(ix.constant(w), p, nm.fresh(w+"_permuted"))
			if !ok {
				return "", fmt.Errorf("cannot permute constant %q", w)
			}
			g.Initializers = append(g.Initializers, t)
			u = t.Name
		case extUnwrap:
			u = tn.Inputs[0]
		case extReuse:
			u = tn.Outputs[0]
		case extNewNode:
			u = nm.fresh(w + "_untransposed")
			extra = append(extra, &canon.Node{Name: nm.fresh(u), Op: &canon.Transpose{Perm: invertPerm(p)}, Inputs: []string{w}, Outputs: []string{u}})
		default:
			return "", fmt.Errorf("input %q cannot be untransposed", w)
		}
		untransposed[key] = u
		return u, nil
	}
	for _, n := range sp.nodes {
		nn := cloneNode(n)
		rule := sp.rule[n]
		nn.Op = rule.op
		for _, slot := range rule.dataSlots {
			w := n.Inputs[slot]
			if u, ok := newName[w]; ok {
				nn.Inputs[slot] = u
				continue
			}
			u, err := external(w, sp.inPerm[n])
			if err != nil {
				return err
			}
			nn.Inputs[slot] = u
		}
		for i, o := range n.Outputs {
			if u, ok := newName[o]; ok {
				nn.Outputs[i] = u
			}
		}
		replaceNode(g, n, nn)
	}
	for _, v := range sp.values[1:] {
		if need[v] {
			extra = append(extra, &canon.Node{Name: nm.fresh(v + "_transpose"), Op: &canon.Transpose{Perm: sp.perm[v]}, Inputs: []string{newName[v]}, Outputs: []string{v}})
		}
	}
	for _, a := range absorb {
		nc := cloneNode(a.c)
		nc.Op = &canon.Transpose{Perm: a.perm}
		nc.Inputs[0] = newName[a.v]
		replaceNode(g, a.c, nc)
	}
	g.Nodes = append(g.Nodes, extra...)
	// The root and unwrapped Transposes die when nothing reads them now.
	readers := g.Consumers()
	outs := map[string]bool{}
	for _, o := range g.Outputs {
		outs[o.Name] = true
	}
	dead := map[*canon.Node]bool{}
	for _, n := range g.Nodes {
		if _, ok := n.Op.(*canon.Transpose); ok && len(readers[n.Outputs[0]]) == 0 && !outs[n.Outputs[0]] {
			dead[n] = true
		}
	}
	removeNodes(g, dead)
	removeIdentityTransposes(g)
	return canon.TopoSort(g)
}

// removeIdentityTransposes drops Transposes whose permutation is the
// identity (absorbed pairs), keeping graph output names.
func removeIdentityTransposes(g *canon.Graph) bool {
	if !slices.ContainsFunc(g.Nodes, func(n *canon.Node) bool {
		t, ok := n.Op.(*canon.Transpose)
		return ok && isIdentityPerm(t.Perm)
	}) {
		return false
	}
	ix := newIndex(g)
	dead := map[*canon.Node]bool{}
	for _, n := range g.Nodes {
		t, ok := n.Op.(*canon.Transpose)
		if !ok || !isIdentityPerm(t.Perm) || n.Outputs[0] == "" {
			continue
		}
		if forward(ix, n.Outputs[0], n.Inputs[0]) {
			dead[n] = true
			ix = newIndex(g)
		}
	}
	removeNodes(g, dead)
	return len(dead) > 0
}

// composePerm is the permutation of Transpose(q) after Transpose(p).
func composePerm(p, q []int64) []int64 {
	out := make([]int64, len(q))
	for i, a := range q {
		if a < 0 || int(a) >= len(p) {
			return []int64{-1}
		}
		out[i] = p[a]
	}
	return out
}
