package optimize

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// maxSinkRegion bounds how many nodes one Transpose is pushed through, and
// sinkPatience how many it is pushed past the best point found so far
// before the search for a better one stops: a Transpose pays off where it
// meets its inverse, which in real graphs is a few ops away.
const (
	maxSinkRegion = 512
	sinkPatience  = 48
)

// sinkPlan is a candidate rewrite for one root Transpose y = T_P(x): the
// nodes in it are moved below the Transpose (they run on untransposed
// data). Every value they define that still carries a permutation is a
// "sunk value" v with original(v) = Transpose_perm[v](new(v)); the root's
// output y is the first one (new(y) = x).
type sinkPlan struct {
	ix     *index
	root   *canon.Node
	perm   map[string][]int64
	values []string // sunk values in the order they appeared
	nodes  []*canon.Node
	inS    map[*canon.Node]bool
	rule   map[*canon.Node]pushedOp
	inPerm map[*canon.Node][]int64 // the permutation n's inputs carried
}

// extKind says how an input from outside the plan is given untransposed.
type extKind uint8

const (
	extRefuse  extKind = iota
	extAsIs            // a scalar or all-ones tensor: broadcasts the same in any layout
	extConst           // a constant: store it permuted
	extUnwrap          // itself Transpose_P(w0): read w0
	extReuse           // Transpose_inv(P)(w) already exists: read it
	extNewNode         // needs a new Transpose_inv(P)(w)
)

func newSinkPlan(ix *index, root *canon.Node) *sinkPlan {
	y := root.Outputs[0]
	p := root.Op.(*canon.Transpose).Perm
	return &sinkPlan{
		ix: ix, root: root,
		perm:   map[string][]int64{y: p},
		values: []string{y},
		inS:    map[*canon.Node]bool{},
		rule:   map[*canon.Node]pushedOp{},
		inPerm: map[*canon.Node][]int64{},
	}
}

func (sp *sinkPlan) rank(v string) (int, bool) { return rankOf(sp.ix.g, v) }

// uniqueConsumers lists the readers of v once each, in node order.
func (sp *sinkPlan) uniqueConsumers(v string) []*canon.Node {
	var out []*canon.Node
	for _, c := range sp.ix.consumers[v] {
		if len(out) == 0 || out[len(out)-1] != c {
			out = append(out, c)
		}
	}
	return out
}

// classify decides how external input w of a node pushed with perm p is
// given untransposed; it also returns the node involved (the Transpose to
// unwrap or reuse).
func (sp *sinkPlan) classify(w string, p []int64) (extKind, *canon.Node) {
	r := len(p)
	if c := sp.ix.constant(w); c != nil {
		switch {
		case len(c.Shape) > r:
			return extRefuse, nil
		case c.NumElements() == 1:
			return extAsIs, nil
		}
		return extConst, nil
	}
	if s, ok := staticShape(sp.ix.g, w); ok && len(s) <= r && canon.NumElements(s) == 1 {
		return extAsIs, nil
	}
	if k, ok := sp.rank(w); !ok || k != r {
		return extRefuse, nil
	}
	if tp := sp.ix.producer[w]; tp != nil && tp != sp.root {
		if t, ok := tp.Op.(*canon.Transpose); ok && slices.Equal(t.Perm, p) && sp.perm[tp.Inputs[0]] == nil {
			return extUnwrap, tp
		}
	}
	inv := invertPerm(p)
	if !slices.Equal(inv, p) { // an involution could reuse a Transpose this plan removes
		for _, c := range sp.ix.consumers[w] {
			if t, ok := c.Op.(*canon.Transpose); ok && c != sp.root && slices.Equal(t.Perm, inv) && c.Outputs[0] != "" {
				return extReuse, c
			}
		}
	}
	return extNewNode, nil
}

// tryAdd moves n below the Transpose if it can run on untransposed data.
func (sp *sinkPlan) tryAdd(n *canon.Node) bool {
	if sp.inS[n] || n == sp.root {
		return false
	}
	if _, isT := n.Op.(*canon.Transpose); isT {
		return false
	}
	var p []int64
	for _, in := range n.Inputs {
		if q := sp.perm[in]; q != nil {
			if p != nil && !slices.Equal(p, q) {
				return false
			}
			p = q
		}
	}
	if p == nil {
		return false
	}
	// A node already moved must not read n's outputs: it took them as
	// external (transposed) values.
	for _, o := range n.Outputs {
		for _, c := range sp.ix.consumers[o] {
			if sp.inS[c] {
				return false
			}
		}
	}
	rule, ok := pushThrough(n, p, sp.rank)
	if !ok || len(rule.outPerms) != len(n.Outputs) {
		return false
	}
	for i, in := range n.Inputs {
		data := slices.Contains(rule.dataSlots, i)
		switch {
		case in == "":
			if data {
				return false
			}
		case sp.perm[in] != nil:
			if !data {
				return false
			}
		case data:
			if k, _ := sp.classify(in, p); k == extRefuse {
				return false
			}
		}
	}
	sp.inS[n] = true
	sp.nodes = append(sp.nodes, n)
	sp.rule[n] = rule
	sp.inPerm[n] = p
	for i, o := range n.Outputs {
		if o != "" && rule.outPerms[i] != nil {
			sp.perm[o] = rule.outPerms[i]
			sp.values = append(sp.values, o)
		}
	}
	return true
}

// replay builds the plan that adds nodes in order, or nil if one of them
// can no longer be added.
func replaySink(ix *index, root *canon.Node, nodes []*canon.Node) *sinkPlan {
	sp := newSinkPlan(ix, root)
	for _, n := range nodes {
		if !sp.tryAdd(n) {
			return nil
		}
	}
	return sp
}

// sinkCost is the change a plan makes: Transpose nodes, then elements they
// move (when every shape involved is static).
type sinkCost struct {
	transposes int
	elems      float64
	known      bool
}

func (a sinkCost) better(b sinkCost) bool {
	if a.transposes != b.transposes {
		return a.transposes < b.transposes
	}
	return a.known && b.known && a.elems < b.elems
}

// improves reports a plan worth applying: fewer Transposes, or as many
// moving fewer elements. Never more Transposes.
func (a sinkCost) improves() bool { return a.better(sinkCost{known: true}) }

func (sp *sinkPlan) numel(v string) (float64, bool) {
	s, ok := staticShape(sp.ix.g, v)
	if !ok {
		return 0, false
	}
	return float64(canon.NumElements(s)), true
}

// absorbable reports a Transpose consumer c of sunk value v: it is
// rewritten to read new(v) with the composed permutation, and removed when
// that is the identity (unless it defines a graph output).
func (sp *sinkPlan) absorbable(c *canon.Node, v string) (composed []int64, ok bool) {
	t, isT := c.Op.(*canon.Transpose)
	pv := sp.perm[v]
	if !isT || c == sp.root || len(t.Perm) != len(pv) {
		return nil, false
	}
	return composePerm(pv, t.Perm), true
}

// needsTranspose reports a sunk value that something outside the plan
// still reads in its original (transposed) form.
func (sp *sinkPlan) needsTranspose(v string) bool {
	if sp.ix.isOutput[v] {
		return true
	}
	for _, c := range sp.uniqueConsumers(v) {
		if sp.inS[c] {
			continue
		}
		if _, ok := sp.absorbable(c, v); !ok {
			return true
		}
	}
	return false
}

func (sp *sinkPlan) cost() sinkCost {
	c := sinkCost{known: true}
	add := func(k int, v string) {
		c.transposes += k
		if n, ok := sp.numel(v); ok {
			c.elems += float64(k) * n
		} else {
			c.known = false
		}
	}
	y := sp.root.Outputs[0]
	for _, v := range sp.values {
		// An absorbed pair that composes to the identity goes; when it
		// defines a graph output, the value it reads takes that name
		// instead, which one output per value can do (see forward).
		renamed := v == y && !sp.renamable(sp.root.Inputs[0])
		for _, cn := range sp.uniqueConsumers(v) {
			if sp.inS[cn] {
				continue
			}
			comp, ok := sp.absorbable(cn, v)
			if !ok || !isIdentityPerm(comp) {
				continue
			}
			if sp.ix.isOutput[cn.Outputs[0]] {
				if renamed {
					continue
				}
				renamed = true
			}
			add(-1, cn.Outputs[0])
		}
		need := sp.needsTranspose(v)
		switch {
		case v == y && !need:
			add(-1, y)
		case v != y && need:
			add(1, v)
		}
	}
	seen := map[string]bool{}
	var unwrapped []*canon.Node
	for _, n := range sp.nodes {
		p := sp.inPerm[n]
		for _, slot := range sp.rule[n].dataSlots {
			w := n.Inputs[slot]
			key := permKey(w, p)
			if sp.perm[w] != nil || seen[key] {
				continue
			}
			seen[key] = true
			switch k, tp := sp.classify(w, p); k {
			case extNewNode:
				add(1, w)
			case extUnwrap:
				if !slices.Contains(unwrapped, tp) {
					unwrapped = append(unwrapped, tp)
				}
			}
		}
	}
	for _, tp := range unwrapped {
		if !sp.ix.isOutput[tp.Outputs[0]] && !slices.ContainsFunc(sp.ix.consumers[tp.Outputs[0]], func(c *canon.Node) bool { return !sp.inS[c] }) {
			add(-1, tp.Outputs[0])
		}
	}
	return c
}

// renamable reports that value x, defined by a node, may take a graph
// output's name.
func (sp *sinkPlan) renamable(x string) bool {
	return sp.ix.producer[x] != nil && !sp.ix.isInput[x] && !sp.ix.isOutput[x]
}

func permKey(w string, p []int64) string {
	b := []byte(w)
	b = append(b, 0)
	for _, a := range p {
		b = append(b, byte(a))
	}
	return string(b)
}

// planSink grows the set of nodes root is pushed through, breadth first,
// and keeps the best prefix (so a chain that only pays at its end, where
// it meets the inverse Transpose, is found), then drops trailing nodes that
// do not help. It returns nil when no plan improves the graph.
func planSink(ix *index, root *canon.Node) *sinkPlan {
	t, ok := root.Op.(*canon.Transpose)
	if !ok || root.Outputs[0] == "" {
		return nil
	}
	y := root.Outputs[0]
	if r, ok := rankOf(ix.g, y); !ok || r != len(t.Perm) || invertPerm(t.Perm) == nil || isIdentityPerm(t.Perm) {
		return nil
	}
	sp := newSinkPlan(ix, root)
	best, bestLen := sp.cost(), 0
	var order []*canon.Node
	var queue []*canon.Node
	enqueue := func(v string) {
		for _, c := range sp.uniqueConsumers(v) {
			if !sp.inS[c] {
				queue = append(queue, c)
			}
		}
	}
	enqueue(y)
	for len(queue) > 0 && len(order) < maxSinkRegion && len(order)-bestLen < sinkPatience {
		n := queue[0]
		queue = queue[1:]
		if !sp.tryAdd(n) {
			continue
		}
		order = append(order, n)
		for _, o := range n.Outputs {
			if sp.perm[o] != nil {
				enqueue(o)
			}
		}
		if c := sp.cost(); c.better(best) {
			best, bestLen = c, len(order)
		}
	}
	order = order[:bestLen]
	for i := len(order) - 1; i >= 0; i-- {
		trial := slices.Delete(slices.Clone(order), i, i+1)
		p2 := replaySink(ix, root, trial)
		if p2 == nil {
			continue
		}
		if c := p2.cost(); !best.better(c) {
			order, best = trial, c
		}
	}
	if !best.improves() {
		return nil
	}
	return replaySink(ix, root, order)
}
