package graphdraw

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// Diff draws the union of an original graph a and a changed graph b (an
// optimized version, say): boxes only in a are Removed, only in b Added, and
// in both but different Changed. Nodes are paired by name first, then by
// kind and input values; edges by the boxes they join and the value they
// carry.
func Diff(a, b *canon.Graph) *Drawing {
	va, vb := newView(a, "a"), newView(b, "b")
	d := &Drawing{Title: b.Name, Diff: true}

	pairOf := pairNodes(a, b) // b node -> a node
	// Boxes of a that are paired take the id of their b partner.
	alias := map[string]string{}
	pairedA := map[*canon.Node]bool{}
	for nb, na := range pairOf {
		alias[va.nodeID[na]] = vb.nodeID[nb]
		pairedA[na] = true
	}
	idA := func(id string) string {
		if x, ok := alias[id]; ok {
			return x
		}
		return id
	}

	boxesA := map[string]*Box{}
	for _, bx := range va.boxes {
		boxesA[idA(bx.ID)] = bx
	}
	inB := map[string]bool{}
	nodeByID := map[string]*canon.Node{}
	for n, id := range vb.nodeID {
		nodeByID[id] = n
	}
	for _, bx := range vb.boxes {
		inB[bx.ID] = true
		if old, ok := boxesA[bx.ID]; !ok {
			bx.Status = Added
		} else if n := nodeByID[bx.ID]; n != nil {
			if note := nodeChange(a, b, pairOf[n], n); note != "" {
				bx.Status, bx.Note, bx.Was = Changed, note, old
			}
		} else if !slices.Equal(old.Outputs, bx.Outputs) {
			bx.Status, bx.Note, bx.Was = Changed, "was "+strings.Join(old.Outputs, ", "), old
		}
		d.Boxes = append(d.Boxes, bx)
	}
	// Removed boxes keep their place in a's order, after the b boxes that
	// precede them; a renderer lays them out by edges anyway.
	for _, bx := range va.boxes {
		if !inB[idA(bx.ID)] {
			bx.Status = Removed
			d.Boxes = append(d.Boxes, bx)
		}
	}

	type key struct{ from, to, value string }
	edgesA := map[key]bool{}
	for _, e := range va.edges() {
		edgesA[key{idA(e.from), idA(e.to), e.value}] = true
	}
	edgesB := map[key]bool{}
	for _, e := range vb.edges() {
		k := key{e.from, e.to, e.value}
		edgesB[k] = true
		st := Added
		if edgesA[k] {
			st = Same
		}
		d.Edges = append(d.Edges, &Edge{From: e.from, To: e.to, Value: e.value, Status: st})
	}
	for _, e := range va.edges() {
		k := key{idA(e.from), idA(e.to), e.value}
		if !edgesB[k] {
			d.Edges = append(d.Edges, &Edge{From: k.from, To: k.to, Value: e.value, Status: Removed})
		}
	}
	return d
}

// pairNodes matches b's nodes to a's: by equal non-empty name (whatever the
// kind), then the remaining ones by kind and identical input values.
func pairNodes(a, b *canon.Graph) map[*canon.Node]*canon.Node {
	pair := map[*canon.Node]*canon.Node{}
	used := map[*canon.Node]bool{}
	byName := map[string]*canon.Node{}
	for _, n := range a.Nodes {
		if n.Name != "" {
			if _, dup := byName[n.Name]; !dup {
				byName[n.Name] = n
			}
		}
	}
	for _, n := range b.Nodes {
		if m, ok := byName[n.Name]; ok && n.Name != "" && !used[m] {
			pair[n], used[m] = m, true
		}
	}
	sig := func(n *canon.Node) string { return n.Op.Kind() + "(" + strings.Join(n.Inputs, ",") + ")" }
	bySig := map[string][]*canon.Node{}
	for _, n := range a.Nodes {
		if !used[n] {
			bySig[sig(n)] = append(bySig[sig(n)], n)
		}
	}
	for _, n := range b.Nodes {
		if _, ok := pair[n]; ok {
			continue
		}
		if c := bySig[sig(n)]; len(c) > 0 {
			pair[n], used[c[0]] = c[0], true
			bySig[sig(n)] = c[1:]
		}
	}
	return pair
}

// nodeChange says what differs between paired nodes, or "" when nothing
// does: kind, attributes, inputs, or the contents of their weights.
func nodeChange(a, b *canon.Graph, na, nb *canon.Node) string {
	var what []string
	if na.Op.Kind() != nb.Op.Kind() {
		what = append(what, "was "+na.Op.Kind())
	} else if !slices.Equal(Attributes(na, a), Attributes(nb, b)) {
		what = append(what, "attributes")
	}
	if !slices.Equal(na.Inputs, nb.Inputs) {
		what = append(what, "inputs")
	}
	wa, wb := a.InitializerIndex(), b.InitializerIndex()
	for i, in := range nb.Inputs {
		tb := wb[in]
		if tb == nil || i >= len(na.Inputs) {
			continue
		}
		ta := wa[na.Inputs[i]]
		if ta == nil || ta.DType != tb.DType || !slices.Equal(ta.Shape, tb.Shape) || !bytes.Equal(ta.Data, tb.Data) {
			what = append(what, "weights")
			break
		}
	}
	if len(nb.Inputs) > len(na.Inputs) && !slices.Contains(what, "inputs") {
		what = append(what, "inputs")
	}
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("changed: %s", strings.Join(what, ", "))
}
