package canon

import (
	"container/heap"
	"errors"
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/internal/nameindex"
)

// Validate checks that g is a well-formed canonical graph: values defined
// once and before use, arities matching each op's signature, initializers
// whose data matches their shape, weights in the layout their consumer
// needs, sane attributes; then it runs Infer, which checks shapes and types.
func (g *Graph) Validate() error {
	if g == nil {
		return errors.New("nil graph")
	}
	// Where each value comes from: "input", "initializer" or a node index.
	inputs := make(map[string]bool, len(g.Inputs))
	for i, v := range g.Inputs {
		if v.Name == "" {
			return fmt.Errorf("graph input %d has no name", i)
		}
		if inputs[v.Name] {
			return fmt.Errorf("graph input %q is listed twice", v.Name)
		}
		inputs[v.Name] = true
	}
	inits := make(map[string]*Tensor, len(g.Initializers))
	for i, t := range g.Initializers {
		if t == nil {
			return fmt.Errorf("initializer %d is nil", i)
		}
		if t.Name == "" {
			return fmt.Errorf("initializer %d (%s%v) has no name", i, t.DType, t.Shape)
		}
		if inits[t.Name] != nil {
			return fmt.Errorf("initializer %q is defined twice", t.Name)
		}
		if !t.DType.Valid() {
			return fmt.Errorf("initializer %q has invalid dtype %s", t.Name, t.DType)
		}
		if err := t.CheckData(); err != nil {
			return fmt.Errorf("initializer %q: %w", t.Name, err)
		}
		inits[t.Name] = t
	}

	// names numbers every value in the order Infer adds them (inputs,
	// initializers, node outputs), and becomes the index of Infer's
	// table: a graph of millions of values holds one such index, not
	// two. producerNode gives the node of each output (ids from base).
	names := nameindex.New(len(g.Inputs) + len(g.Initializers) + len(g.Nodes))
	for _, v := range g.Inputs {
		names.Add(v.Name)
	}
	for _, t := range g.Initializers {
		names.Add(t.Name)
	}
	base := int32(names.Len())
	producerNode := make([]int32, 0, len(g.Nodes))
	producer := func(name string) int {
		if id := names.Find(name); id >= base {
			return int(producerNode[id-base])
		}
		return -1
	}
	for i, n := range g.Nodes {
		if n == nil {
			return fmt.Errorf("node %d is nil", i)
		}
		if isNilOp(n.Op) {
			return fmt.Errorf("node %q (index %d) has no op", n.Name, i)
		}
		if err := checkArity(n); err != nil {
			return err
		}
		if err := checkAttrs(n); err != nil {
			return err
		}
		for _, o := range n.Outputs {
			switch {
			case o == "":
			case inputs[o]:
				return nodeErrorf(n, "output %q redefines a graph input", o)
			case inits[o] != nil:
				return nodeErrorf(n, "output %q redefines an initializer", o)
			default:
				if _, added := names.Add(o); !added {
					p := g.Nodes[producer(o)]
					return nodeErrorf(n, "output %q is already defined by node %q (%s)", o, p.Name, opKind(p.Op))
				}
				producerNode = append(producerNode, int32(i))
			}
		}
	}

	for i, n := range g.Nodes {
		for _, in := range n.Inputs {
			if in == "" || inputs[in] || inits[in] != nil {
				continue
			}
			j := producer(in)
			switch {
			case j < 0:
				return nodeErrorf(n, "input %q is undefined: no graph input, initializer or node output has that name", in)
			case j == i:
				return nodeErrorf(n, "input %q is its own output: cycle %s -> %s", in, n.Name, n.Name)
			case j > i:
				p := g.Nodes[j]
				if path := findPath(g, i, j); path != nil {
					return nodeErrorf(n, "input %q comes from a cycle: %s", in, cycleString(g, path))
				}
				return nodeErrorf(n, "input %q is defined later, by node %q (%s): nodes are not in topological order (TopoSort fixes that)",
					in, p.Name, opKind(p.Op))
			}
		}
	}

	if err := g.checkLayouts(inits); err != nil {
		return err
	}

	// Graph outputs are an ordered list: a value may be listed twice (a
	// Caffe Split whose tops are both outputs) and may be a graph input.
	for i, o := range g.Outputs {
		if o.Name == "" {
			return fmt.Errorf("graph output %d has no name", i)
		}
		if names.Find(o.Name) < 0 {
			return fmt.Errorf("graph output %q is undefined: no node, input or initializer produces it", o.Name)
		}
	}
	return g.infer(names)
}

// checkLayouts requires every constant weight (an initializer or a Constant
// node's value) to be stored in the layout its consuming op expects, and to
// be consumed in one layout only.
func (g *Graph) checkLayouts(inits map[string]*Tensor) error {
	consts := make(map[string]*Tensor, len(inits))
	for k, t := range inits {
		consts[k] = t
	}
	for _, n := range g.Nodes {
		if c, ok := n.Op.(*Constant); ok && len(n.Outputs) == 1 && n.Outputs[0] != "" {
			consts[n.Outputs[0]] = c.Value
		}
	}
	type use struct {
		n      *Node
		layout Layout
	}
	seen := make(map[string]use)
	for _, n := range g.Nodes {
		specs := n.Op.Signature().Inputs
		for i, in := range n.Inputs {
			if in == "" || i >= len(specs) {
				continue
			}
			t := consts[in]
			spec := specs[i]
			if t == nil {
				continue
			}
			want, ok := LayoutFor(spec.Role, len(t.Shape))
			if !ok {
				continue
			}
			what := roleWord(spec)
			convLike := spec.Role == RoleConvWeight || spec.Role == RoleDeconvWeight
			if len(want) != len(t.Shape) || (convLike && len(t.Shape) < 3) {
				return nodeErrorf(n, "%s %q has shape %v (rank %d); %s needs a %s of rank %d",
					what, in, t.Shape, len(t.Shape), opKind(n.Op), what, rankFor(spec.Role, len(t.Shape)))
			}
			// A tensor feeding two roles that need different layouts cannot
			// satisfy both: say so rather than blame one of the uses.
			if u, dup := seen[in]; dup && u.layout != want {
				return nodeErrorf(n, "%s %q is used in layout %s here but in layout %s by node %q (%s); give each use its own copy",
					what, in, want, u.layout, u.n.Name, opKind(u.n.Op))
			}
			if t.Layout != want {
				have := string(t.Layout)
				if have == "" {
					have = "no layout"
				} else {
					have = "layout " + have
				}
				return nodeErrorf(n, "%s %q has %s, %s needs %s", what, in, have, opKind(n.Op), want)
			}
			seen[in] = use{n, want}
		}
	}
	return nil
}

func roleWord(s InputSpec) string {
	switch s.Role {
	case RoleConvWeight, RoleDeconvWeight, RoleLinearWeight:
		return "weight"
	case RoleBias:
		return "bias"
	}
	return strings.ToLower(s.Name)
}

// rankFor is the rank a role needs, used when a tensor's rank is wrong.
func rankFor(r Role, rank int) int {
	switch r {
	case RoleConvWeight, RoleDeconvWeight:
		if rank < 3 {
			return 4
		}
		return min(rank, 5)
	case RoleLinearWeight, RoleGateVector:
		return 2
	case RoleGateWeight:
		return 3
	}
	return 1
}

// findPath returns node indices from..to along data edges (from's outputs
// feeding, eventually, to), or nil.
func findPath(g *Graph, from, to int) []int {
	idx := make(map[*Node]int, len(g.Nodes))
	for i, n := range g.Nodes {
		idx[n] = i
	}
	cons := g.Consumers()
	parent := map[int]int{from: -1}
	queue := []int{from}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if i == to {
			var path []int
			for k := to; k != -1; k = parent[k] {
				path = append(path, k)
			}
			for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
				path[l], path[r] = path[r], path[l]
			}
			return path
		}
		for _, o := range g.Nodes[i].Outputs {
			if o == "" {
				continue
			}
			for _, m := range cons[o] {
				j := idx[m]
				if _, ok := parent[j]; !ok {
					parent[j] = i
					queue = append(queue, j)
				}
			}
		}
	}
	return nil
}

func cycleString(g *Graph, path []int) string {
	names := make([]string, 0, len(path)+1)
	for _, i := range path {
		names = append(names, g.Nodes[i].Name)
	}
	names = append(names, g.Nodes[path[0]].Name)
	return strings.Join(names, " -> ")
}

// checkArity checks n's input and output counts against its signature.
func checkArity(n *Node) error {
	s := n.Op.Signature()
	specs := s.Inputs
	variadic := len(specs) > 0 && specs[len(specs)-1].Variadic
	switch {
	case variadic && len(n.Inputs) < len(specs):
		return nodeErrorf(n, "has %d inputs, needs at least %d", len(n.Inputs), len(specs))
	case !variadic && len(n.Inputs) > len(specs):
		return nodeErrorf(n, "has %d inputs %q, takes at most %d (%s)", len(n.Inputs), n.Inputs, len(specs), specNames(specs))
	}
	for i, name := range n.Inputs {
		spec := specs[min(i, len(specs)-1)]
		if name == "" && !spec.Optional {
			return nodeErrorf(n, "required input %s (#%d) is empty", spec.Name, i)
		}
	}
	for i := len(n.Inputs); i < len(specs); i++ {
		if !specs[i].Optional {
			return nodeErrorf(n, "has %d inputs, missing required input %s (takes %s)", len(n.Inputs), specs[i].Name, specNames(specs))
		}
	}
	if len(n.Outputs) < s.MinOutputs || (s.MaxOutputs >= 0 && len(n.Outputs) > s.MaxOutputs) {
		want := fmt.Sprint(s.MinOutputs)
		switch {
		case s.MaxOutputs < 0:
			want = fmt.Sprintf("at least %d", s.MinOutputs)
		case s.MaxOutputs != s.MinOutputs:
			want = fmt.Sprintf("%d to %d", s.MinOutputs, s.MaxOutputs)
		}
		return nodeErrorf(n, "has %d outputs, wants %s", len(n.Outputs), want)
	}
	return nil
}

func specNames(specs []InputSpec) string {
	var b []string
	for _, s := range specs {
		name := s.Name
		if s.Optional {
			name += "?"
		}
		if s.Variadic {
			name += "..."
		}
		b = append(b, name)
	}
	return strings.Join(b, ", ")
}

// CheckCtx carries one node through its op's attribute check.
type CheckCtx struct {
	N *Node
}

// Errorf is an error naming the node.
func (c *CheckCtx) Errorf(format string, args ...any) error { return nodeErrorf(c.N, format, args...) }

// HasInput reports whether optional input i is given.
func (c *CheckCtx) HasInput(i int) bool { return hasInput(c.N, i) }

// AtLeast fails unless every entry of v is >= lo.
func (c *CheckCtx) AtLeast(name string, v []int64, lo int64) error {
	for _, x := range v {
		if x < lo {
			return c.Errorf("%s %v has %d; every entry must be >= %d", name, v, x, lo)
		}
	}
	return nil
}

// sameLen fails unless every attribute has as many entries as the first.
func (c *CheckCtx) sameLen(attrs ...namedInts) error {
	for _, a := range attrs[1:] {
		if len(a.v) != len(attrs[0].v) {
			return c.Errorf("%s %v and %s %v must have one entry per spatial axis", attrs[0].name, attrs[0].v, a.name, a.v)
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// checkAttrs checks attribute values that make no sense whatever the input
// shapes: the things that would otherwise divide by zero or index out of
// range later. An op of no registered kind is an error here, so the
// backends, which trust a validated graph, never see one.
func checkAttrs(n *Node) error {
	d := DefOf(n.Op)
	if d == nil {
		return nodeErrorf(n, "op kind %s is not a registered canonical op", opKind(n.Op))
	}
	if err := checkDynamicParams(n); err != nil {
		return err
	}
	if d.Check == nil {
		return nil
	}
	return d.Check(&CheckCtx{N: n})
}

// hasInput reports whether n's optional input i is given.
func hasInput(n *Node, i int) bool { return i < len(n.Inputs) && n.Inputs[i] != "" }

// checkDynamicParams rejects a node that gives the same parameter both as an
// attribute and as a run-time input: the canonical form has one source.
func checkDynamicParams(n *Node) error {
	pa, ok := n.Op.(ParamAttr)
	if !ok {
		return nil
	}
	for _, i := range ParamInputs(n.Op) {
		if name, set := pa.AttrGiven(i); set && hasInput(n, i) {
			return nodeErrorf(n, "has both a %s attribute and a %s input %q; give one", name, name, n.Inputs[i])
		}
	}
	return nil
}

func (c *CheckCtx) pool(kernel, strides, dils, pb, pe []int64) error {
	if len(kernel) == 0 {
		return c.Errorf("Kernel is empty")
	}
	return firstErr(
		c.sameLen(namedInts{"Kernel", kernel}, namedInts{"Strides", strides}, namedInts{"Dilations", dils}, namedInts{"PadsBegin", pb}, namedInts{"PadsEnd", pe}),
		c.AtLeast("Kernel", kernel, 1), c.AtLeast("Strides", strides, 1), c.AtLeast("Dilations", dils, 1),
		c.AtLeast("PadsBegin", pb, 0), c.AtLeast("PadsEnd", pe, 0))
}

// TopoSort reorders g.Nodes so that every node comes after the producers of
// its inputs. It is stable: among nodes that are ready, the one listed first
// goes first, so a sorted graph is left as it is. Inputs that no node
// produces are ignored here (Validate reports them). On a cycle it returns
// an error naming the nodes on it and leaves g unchanged.
func TopoSort(g *Graph) error {
	nodes := g.Nodes
	producer := make(map[string]int, len(nodes))
	for i, n := range nodes {
		if n == nil {
			return fmt.Errorf("node %d is nil", i)
		}
		for _, o := range n.Outputs {
			if _, dup := producer[o]; o != "" && !dup {
				producer[o] = i
			}
		}
	}
	indeg := make([]int, len(nodes))
	users := make([][]int, len(nodes))
	deps := make([][]int, len(nodes))
	for i, n := range nodes {
		for _, in := range n.Inputs {
			if j, ok := producer[in]; ok && in != "" {
				indeg[i]++
				users[j] = append(users[j], i)
				deps[i] = append(deps[i], j)
			}
		}
	}
	ready := &intHeap{}
	for i, d := range indeg {
		if d == 0 {
			heap.Push(ready, i)
		}
	}
	order := make([]*Node, 0, len(nodes))
	done := make([]bool, len(nodes))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		order = append(order, nodes[i])
		done[i] = true
		for _, u := range users[i] {
			if indeg[u]--; indeg[u] == 0 {
				heap.Push(ready, u)
			}
		}
	}
	if len(order) == len(nodes) {
		copy(g.Nodes, order)
		return nil
	}
	// Every node left depends on a cycle; walk back through unfinished
	// producers until one repeats, which puts it on the cycle.
	start := 0
	for done[start] {
		start++
	}
	pos := map[int]int{}
	var walk []int
	for i := start; ; {
		if p, ok := pos[i]; ok {
			cyc := walk[p:]
			names := make([]string, 0, len(cyc)+1)
			for k := len(cyc) - 1; k >= 0; k-- { // walk went against the data flow
				names = append(names, nodes[cyc[k]].Name)
			}
			names = append(names, nodes[cyc[len(cyc)-1]].Name)
			n := nodes[i]
			return nodeErrorf(n, "is on a cycle: %s", strings.Join(names, " -> "))
		}
		pos[i] = len(walk)
		walk = append(walk, i)
		next := -1
		for _, j := range deps[i] {
			if !done[j] {
				next = j
				break
			}
		}
		if next < 0 { // cannot happen: a node left over has an unfinished producer
			return nodeErrorf(nodes[i], "could not be ordered")
		}
		i = next
	}
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
