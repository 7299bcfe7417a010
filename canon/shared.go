package canon

import (
	"strconv"
	"strings"
	"unsafe"
)

// Shared weights. A weight read by several nodes is one tensor: either one
// initializer name that several nodes read, or several initializers whose
// Data is the same bytes in memory (the same dtype, shape and length), which
// is how importers keep the names a source gave to one tensor (an ONNX
// Identity of an initializer, PyTorch parameters that share a storage, a
// tied output layer). Data is never written to, so such names can never
// drift apart; a pass that changes one of them builds new data for it,
// which is the copy it must make, and only then.

// SameData reports whether a and b are one tensor under two names: the same
// non-empty bytes in memory, read with the same dtype and shape. Layouts may
// differ only when one of them is unset (a name no layout-bound op reads).
func SameData(a, b *Tensor) bool {
	if a == nil || b == nil || len(a.Data) == 0 || len(a.Data) != len(b.Data) ||
		unsafe.SliceData(a.Data) != unsafe.SliceData(b.Data) || a.DType != b.DType || len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	return a.Layout == b.Layout || a.Layout == "" || b.Layout == ""
}

// SharedNames maps every initializer that is a second name of an earlier
// one (see SameData) to the first name, which owns the weight. Names not in
// the map own their weight.
func (g *Graph) SharedNames() map[string]string {
	type key struct {
		p   *byte
		n   int
		dt  DType
		shp string
	}
	owners := map[key][]*Tensor{}
	alias := map[string]string{}
	for _, t := range g.Initializers {
		if t == nil || len(t.Data) == 0 {
			continue
		}
		k := key{unsafe.SliceData(t.Data), len(t.Data), t.DType, shapeKey(t.Shape)}
		found := false
		for _, o := range owners[k] {
			if SameData(o, t) && o.Name != t.Name {
				alias[t.Name] = o.Name
				found = true
				break
			}
		}
		if !found {
			owners[k] = append(owners[k], t)
		}
	}
	return alias
}

func shapeKey(s []int64) string {
	var b strings.Builder
	for _, d := range s {
		b.WriteString(strconv.FormatInt(d, 10))
		b.WriteByte(',')
	}
	return b.String()
}

// MergeShared returns a shallow copy of g in which every second name of a
// shared weight is replaced by its owner's name: nodes read the owner, and
// the second initializer is gone, so a format that names each weight once
// (ONNX, MXNet) writes it once. A second name that is a graph output stays
// one, computed by an Identity of the owner. The map lists the names
// replaced. g itself is not changed.
func MergeShared(g *Graph) (*Graph, map[string]string) {
	alias := g.SharedNames()
	if len(alias) == 0 {
		return g, nil
	}
	cp := *g
	cp.Initializers = make([]*Tensor, 0, len(g.Initializers)-len(alias))
	owner := map[string]*Tensor{}
	for _, t := range g.Initializers {
		if _, ok := alias[t.Name]; !ok {
			cp.Initializers = append(cp.Initializers, t)
			owner[t.Name] = t
		}
	}
	// The owner takes the layout a second name carried when it had none.
	for _, t := range g.Initializers {
		o, ok := alias[t.Name]
		if !ok || t.Layout == "" || owner[o].Layout != "" {
			continue
		}
		c := *owner[o]
		c.Layout = t.Layout
		owner[o] = &c
		for i, x := range cp.Initializers {
			if x.Name == o {
				cp.Initializers[i] = &c
			}
		}
	}
	isOutput := map[string]bool{}
	for _, o := range g.Outputs {
		isOutput[o.Name] = true
	}
	cp.Nodes = make([]*Node, 0, len(g.Nodes)+len(alias))
	for _, t := range g.Initializers {
		if o, ok := alias[t.Name]; ok && isOutput[t.Name] {
			cp.Nodes = append(cp.Nodes, &Node{Name: t.Name, Op: &Identity{}, Inputs: []string{o}, Outputs: []string{t.Name}})
		}
	}
	for _, n := range g.Nodes {
		c := *n
		c.Inputs = append([]string(nil), n.Inputs...)
		for i, in := range c.Inputs {
			if o, ok := alias[in]; ok {
				c.Inputs[i] = o
			}
		}
		cp.Nodes = append(cp.Nodes, &c)
	}
	cp.Values = nil
	return &cp, alias
}
