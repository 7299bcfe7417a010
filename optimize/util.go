package optimize

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// index answers the lookups passes make over one graph state. It is built
// once per pass run and must be rebuilt after edits that it depends on.
type index struct {
	g         *canon.Graph
	producer  map[string]*canon.Node
	consumers map[string][]*canon.Node
	isOutput  map[string]bool
	isInput   map[string]bool
	inits     map[string]*canon.Tensor // initializers not shadowed by a graph input
}

func newIndex(g *canon.Graph) *index {
	ix := &index{
		g:         g,
		producer:  g.Producers(),
		consumers: g.Consumers(),
		isOutput:  make(map[string]bool, len(g.Outputs)),
		isInput:   make(map[string]bool, len(g.Inputs)),
		inits:     make(map[string]*canon.Tensor, len(g.Initializers)),
	}
	for _, o := range g.Outputs {
		ix.isOutput[o.Name] = true
	}
	for _, in := range g.Inputs {
		ix.isInput[in.Name] = true
	}
	for _, t := range g.Initializers {
		// An initializer that shares a graph input's name is only a default:
		// the caller may feed another value, so it is not a constant.
		if !ix.isInput[t.Name] {
			ix.inits[t.Name] = t
		}
	}
	return ix
}

// constant returns the value of name when it is fixed before the graph
// runs: an initializer or the output of a Constant node.
func (ix *index) constant(name string) *canon.Tensor {
	if name == "" {
		return nil
	}
	if t := ix.inits[name]; t != nil {
		return t
	}
	if p := ix.producer[name]; p != nil {
		if c, ok := p.Op.(*canon.Constant); ok && c.Value != nil {
			return c.Value
		}
	}
	return nil
}

// onlyFeeds reports that value v is read by node n alone (in one slot) and
// is not a graph output, so n's producer may be rewritten freely.
func (ix *index) onlyFeeds(v string, n *canon.Node) bool {
	if ix.isOutput[v] {
		return false
	}
	cs := ix.consumers[v]
	if len(cs) != 1 || cs[0] != n {
		return false
	}
	k := 0
	for _, in := range n.Inputs {
		if in == v {
			k++
		}
	}
	return k == 1
}

// namer hands out value, node and tensor names that are not used yet.
type namer struct {
	used map[string]bool
	next map[string]int // next suffix to try per base: keeps fresh O(1) in long searches
}

func newNamer(g *canon.Graph) *namer {
	nm := &namer{used: map[string]bool{}, next: map[string]int{}}
	nm.addGraph(g)
	return nm
}

func (nm *namer) addGraph(g *canon.Graph) {
	for _, v := range g.Inputs {
		nm.used[v.Name] = true
	}
	for _, v := range g.Outputs {
		nm.used[v.Name] = true
	}
	for _, t := range g.Initializers {
		nm.used[t.Name] = true
	}
	for _, n := range g.Nodes {
		nm.used[n.Name] = true
		for _, o := range n.Outputs {
			nm.used[o] = true
		}
		for _, i := range n.Inputs {
			nm.used[i] = true
		}
	}
}

// Namer hands out value, node and tensor names unused in a graph, for
// rewrites made outside this package (quantization).
type Namer struct{ nm *namer }

// NewNamer reserves every name g uses.
func NewNamer(g *canon.Graph) *Namer { return &Namer{newNamer(g)} }

// Fresh returns base, or base_N for the first N that is free, and
// reserves it.
func (n *Namer) Fresh(base string) string { return n.nm.fresh(base) }

func (nm *namer) fresh(base string) string {
	if base == "" {
		base = "opt"
	}
	if !nm.used[base] {
		nm.used[base] = true
		return base
	}
	if nm.next == nil {
		nm.next = map[string]int{}
	}
	for i := max(nm.next[base], 1); ; i++ {
		c := fmt.Sprintf("%s_%d", base, i)
		if !nm.used[c] {
			nm.used[c] = true
			nm.next[base] = i + 1
			return c
		}
	}
}

// renameInputs makes every node that reads old read new instead.
func renameInputs(g *canon.Graph, old, new string) {
	for _, n := range g.Nodes {
		for i, in := range n.Inputs {
			if in == old {
				n.Inputs[i] = new
			}
		}
	}
}

// forward records that value from (defined by a node about to be removed)
// equals value to: readers of from read to instead. When from is a graph
// output its name must survive, so to is renamed to from at its producer
// instead; that is possible only when to is defined by a node and is not
// itself a graph input or output. It reports whether the rewrite was made;
// on false the graph is unchanged.
func forward(ix *index, from, to string) bool {
	if !ix.isOutput[from] {
		renameInputs(ix.g, from, to)
		return true
	}
	p := ix.producer[to]
	if p == nil || ix.isOutput[to] || ix.isInput[to] {
		return false
	}
	for i, o := range p.Outputs {
		if o == to {
			p.Outputs[i] = from
		}
	}
	renameInputs(ix.g, to, from)
	return true
}

// removeNodes drops the marked nodes, keeping the order of the rest.
func removeNodes(g *canon.Graph, dead map[*canon.Node]bool) {
	if len(dead) == 0 {
		return
	}
	g.Nodes = slices.DeleteFunc(g.Nodes, func(n *canon.Node) bool { return dead[n] })
}

// replaceNode puts nn where old was.
func replaceNode(g *canon.Graph, old, nn *canon.Node) {
	for i, n := range g.Nodes {
		if n == old {
			g.Nodes[i] = nn
			return
		}
	}
}

// f32Values decodes an f32 tensor as float64 values; other dtypes are
// refused so that no pass silently changes a weight's precision.
func f32Values(t *canon.Tensor) ([]float64, error) {
	if t == nil {
		return nil, fmt.Errorf("missing tensor")
	}
	if t.DType != canon.Float32 {
		return nil, fmt.Errorf("tensor %q is %s, only f32 weights are rewritten", t.Name, t.DType)
	}
	return t.Float64s()
}

// f32Tensor rounds v to float32 once, at the end of a float64 computation.
func f32Tensor(name string, shape []int64, layout canon.Layout, v []float64) *canon.Tensor {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	t := canon.NewFloat32Tensor(name, slices.Clone(shape), f)
	t.Layout = layout
	return t
}

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// staticShape is the concrete shape of a value after Infer.
func staticShape(g *canon.Graph, name string) ([]int64, bool) {
	v, ok := g.Values.Lookup(name)
	if !ok {
		return nil, false
	}
	return v.StaticShape()
}

func rankOf(g *canon.Graph, name string) (int, bool) {
	v, ok := g.Values.Lookup(name)
	if !ok || !v.RankKnown {
		return 0, false
	}
	return len(v.Shape), true
}

// cloneNode copies a node's struct and name slices; the op is shared (ops
// are never mutated in place by this package: a rewrite installs a copy).
func cloneNode(n *canon.Node) *canon.Node {
	return &canon.Node{Name: n.Name, Op: n.Op, Inputs: slices.Clone(n.Inputs), Outputs: slices.Clone(n.Outputs)}
}

// Clone copies g so that passes can rewrite the copy: nodes and the value
// lists are copied, weight tensors (read-only) and ops are shared. The copy
// reads tensor data owned by g, so g must stay open while the copy is used.
func Clone(g *canon.Graph) *canon.Graph {
	c := &canon.Graph{
		Name:         g.Name,
		Inputs:       cloneInfos(g.Inputs),
		Outputs:      cloneInfos(g.Outputs),
		Nodes:        make([]*canon.Node, len(g.Nodes)),
		Initializers: slices.Clone(g.Initializers),
		Meta:         g.Meta,
	}
	c.Meta.Props = slices.Clone(g.Meta.Props)
	c.Meta.Notes = slices.Clone(g.Meta.Notes)
	for i, n := range g.Nodes {
		c.Nodes[i] = cloneNode(n)
	}
	return c
}

// shallowClone shares the node structs too: for the search, whose
// substitutions replace nodes instead of editing them.
func shallowClone(g *canon.Graph) *canon.Graph {
	return &canon.Graph{
		Name:         g.Name,
		Inputs:       g.Inputs,
		Outputs:      g.Outputs,
		Nodes:        slices.Clone(g.Nodes),
		Initializers: slices.Clone(g.Initializers),
		Meta:         g.Meta,
		Values:       g.Values,
	}
}

func cloneInfos(vs []canon.ValueInfo) []canon.ValueInfo {
	out := make([]canon.ValueInfo, len(vs))
	for i, v := range vs {
		v.Shape = slices.Clone(v.Shape)
		out[i] = v
	}
	return out
}

func outputNames(g *canon.Graph) []string {
	out := make([]string, len(g.Outputs))
	for i, o := range g.Outputs {
		out[i] = o.Name
	}
	return out
}

func nodeRef(n *canon.Node) string {
	kind := "?"
	if n.Op != nil {
		kind = n.Op.Kind()
	}
	return fmt.Sprintf("node %q (%s)", n.Name, kind)
}
