package optimize

import (
	"slices"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
)

// Bounds of unroll_loops: a loop is unrolled only when it runs at most
// maxUnrollTrips times and its copies add at most maxUnrolledNodes nodes,
// so that the model stays about the size it was.
const (
	maxUnrollTrips   = 8
	maxUnrolledNodes = 128
)

// unrollLoops replaces a Loop that always runs a small constant number of
// times by that many copies of its body, and a Scan over inputs of a small
// static length by one copy per slice. A Loop qualifies when its trip count
// M is a constant in 1..maxUnrollTrips, its condition input is absent or a
// constant true, and its body's condition output is provably true (the
// condition input passed through, or a constant true): a loop that may stop
// early at run time stays. Carried values are threaded from one copy to the
// next, the iteration number becomes a constant, and scan outputs are
// stacked with Unsqueeze and Concat. A rewrite that would not validate (a
// body whose carried values change kind between iterations) is dropped.
func unrollLoops(g *canon.Graph) (bool, error) {
	var nm *namer
	changed := false
	for i := 0; i < len(g.Nodes); i++ {
		n := g.Nodes[i]
		var plan func(*unroller) bool
		switch op := n.Op.(type) {
		case *canon.Loop:
			plan = func(u *unroller) bool { return u.loop(op) }
		case *canon.Scan:
			plan = func(u *unroller) bool { return u.scan(op) }
		default:
			continue
		}
		if nm == nil {
			nm = newNamer(g)
			addSubgraphNames(nm, g)
		}
		u := &unroller{g: g, ix: newIndex(g), nm: nm, n: n, inits: map[string]string{}, indices: map[int64]string{}}
		if !plan(u) {
			continue
		}
		nodes, inits := g.Nodes, g.Initializers
		g.Nodes = append(append(append([]*canon.Node{}, nodes[:i]...), u.nodes...), nodes[i+1:]...)
		g.Initializers = append(append([]*canon.Tensor{}, inits...), u.newInits...)
		if err := g.Validate(); err != nil {
			g.Nodes, g.Initializers = nodes, inits
			if err := g.Validate(); err != nil {
				return changed, err
			}
			continue
		}
		i += len(u.nodes) - 1
		changed = true
	}
	return changed, nil
}

// unroller writes the copies of one Loop or Scan node's body.
type unroller struct {
	g        *canon.Graph
	ix       *index
	nm       *namer
	n        *canon.Node
	inits    map[string]string // body initializer -> its name in g (one copy for every iteration)
	newInits []*canon.Tensor
	nodes    []*canon.Node
	indices  map[int64]string // int64 scalar constant -> its initializer
}

// loop plans the copies of a Loop's body; false leaves the Loop alone.
func (u *unroller) loop(op *canon.Loop) bool {
	body, n := op.Body, u.n
	if body == nil || len(n.Inputs) < 2 || len(body.Inputs) < 2 || len(body.Outputs) < 1+op.Carried() {
		return false
	}
	m := u.ix.constant(n.Inputs[0])
	if m == nil || m.DType != canon.Int64 || len(m.Data) != 8 {
		return false
	}
	tv, err := m.Int64s()
	if err != nil {
		return false
	}
	trips := tv[0]
	if trips < 1 || trips > maxUnrollTrips || int(trips)*len(body.Nodes) > maxUnrolledNodes {
		return false
	}
	if c := n.Inputs[1]; c != "" && !isConstantTrue(u.ix.constant(c)) {
		return false
	}
	if !bodyAlwaysContinues(body) {
		return false
	}
	carried, scans := op.Carried(), op.ScanOutputs()
	state := make([]string, carried)
	copy(state, n.Inputs[2:2+carried])
	stacked := make([][]string, scans)
	cond := u.constant("true", &canon.Tensor{DType: canon.Bool, Shape: []int64{}, Data: []byte{1}})
	for it := range trips {
		bound := map[string]string{body.Inputs[1].Name: cond}
		if usesValue(body, body.Inputs[0].Name) {
			bound[body.Inputs[0].Name] = u.index(it)
		}
		for k := range carried {
			bound[body.Inputs[2+k].Name] = state[k]
		}
		var final map[int]string
		if it == trips-1 {
			final = u.finalNames(1, carried)
		}
		outs := u.copyBody(body, "/"+strconv.FormatInt(it, 10)+"/", bound, final)
		copy(state, outs[1:1+carried])
		for j := range scans {
			stacked[j] = append(stacked[j], outs[1+carried+j])
		}
	}
	for k := range carried {
		u.bindOutput(k, state[k])
	}
	for j := range scans {
		u.stackOutput(carried+j, stacked[j], 0, false)
	}
	return true
}

// scan plans the copies of a Scan's body, one per slice of its scan inputs
// (whose length along the scan axis must be static); false leaves it alone.
func (u *unroller) scan(op *canon.Scan) bool {
	body, n := op.Body, u.n
	states, ins := op.States(), int(op.NumScanInputs)
	if body == nil || len(n.Inputs) < states+ins || len(body.Outputs) < states {
		return false
	}
	length := int64(-1)
	axes := make([]int64, ins)
	for j := range ins {
		shape, ok := staticShape(u.g, n.Inputs[states+j])
		if !ok {
			return false
		}
		axis, ok := normalized(op.InputAxis(j), len(shape))
		if !ok || (length >= 0 && shape[axis] != length) {
			return false
		}
		axes[j], length = axis, shape[axis]
	}
	if length < 1 || length > maxUnrollTrips || int(length)*(len(body.Nodes)+ins) > maxUnrolledNodes {
		return false
	}
	state := make([]string, states)
	copy(state, n.Inputs[:states])
	stacked := make([][]string, op.ScanOutputCount())
	for step := range length {
		bound := map[string]string{}
		for k := range states {
			bound[body.Inputs[k].Name] = state[k]
		}
		for j := range ins {
			at := step
			if op.InputReversed(j) {
				at = length - 1 - step
			}
			idx := u.index(at)
			slice := u.nm.fresh(n.Name + "/" + strconv.FormatInt(step, 10) + "/" + body.Inputs[states+j].Name)
			u.nodes = append(u.nodes, &canon.Node{Name: slice, Op: &canon.Gather{Axis: axes[j]},
				Inputs: []string{n.Inputs[states+j], idx}, Outputs: []string{slice}})
			bound[body.Inputs[states+j].Name] = slice
		}
		var final map[int]string
		if step == length-1 {
			final = u.finalNames(0, states)
		}
		outs := u.copyBody(body, "/"+strconv.FormatInt(step, 10)+"/", bound, final)
		copy(state, outs[:states])
		for j := range stacked {
			stacked[j] = append(stacked[j], outs[states+j])
		}
	}
	for k := range states {
		u.bindOutput(k, state[k])
	}
	for j := range stacked {
		u.stackOutput(states+j, stacked[j], op.OutputAxis(j), op.OutputReversed(j))
	}
	return true
}

// copyBody appends one copy of body's nodes, reading the values bound to
// its inputs and captures, and returns the names of its outputs. Outputs
// listed in final (by position) that the body computes and lists once are
// written straight under the given name.
func (u *unroller) copyBody(body *canon.Graph, tag string, bound map[string]string, final map[int]string) []string {
	rename := map[string]string{}
	for k, v := range bound {
		rename[k] = v
	}
	caps := u.n.Op.(canon.SubgraphOwner).CaptureNames()
	first := len(u.n.Inputs) - len(caps)
	for k, c := range caps {
		rename[c] = u.n.Inputs[first+k]
	}
	for _, t := range body.Initializers {
		if _, ok := u.inits[t.Name]; !ok {
			c := *t
			c.Name = u.nm.fresh(u.n.Name + "/" + t.Name)
			u.inits[t.Name] = c.Name
			u.newInits = append(u.newInits, &c)
		}
		rename[t.Name] = u.inits[t.Name]
	}
	direct := directOutputs(body)
	for k, name := range final {
		if o := body.Outputs[k].Name; name != "" && direct[o] {
			rename[o] = name
		}
	}
	u.nodes = append(u.nodes, copyNodes(u.nm, u.n.Name+tag, body, rename)...)
	outs := make([]string, len(body.Outputs))
	for k, o := range body.Outputs {
		outs[k] = rename[o.Name]
	}
	return outs
}

// finalNames maps the body outputs first..first+count-1 to the node's
// outputs 0..count-1, which the last copy writes directly.
func (u *unroller) finalNames(first, count int) map[int]string {
	final := map[int]string{}
	for k := range min(count, len(u.n.Outputs)) {
		final[first+k] = u.n.Outputs[k]
	}
	return final
}

// index is an int64 scalar constant (an iteration number, a slice
// position), one initializer per value.
func (u *unroller) index(v int64) string {
	if name, ok := u.indices[v]; ok {
		return name
	}
	name := u.constant("index_"+strconv.FormatInt(v, 10), canon.NewInt64Tensor("", []int64{}, []int64{v}))
	u.indices[v] = name
	return name
}

// bindOutput makes the node's output k the value v (an Identity unless the
// last copy already wrote it under that name).
func (u *unroller) bindOutput(k int, v string) {
	if k >= len(u.n.Outputs) || u.n.Outputs[k] == "" || u.n.Outputs[k] == v {
		return
	}
	out := u.n.Outputs[k]
	u.nodes = append(u.nodes, &canon.Node{Name: u.nm.fresh(u.n.Name + "/" + out), Op: &canon.Identity{},
		Inputs: []string{v}, Outputs: []string{out}})
}

// stackOutput makes the node's output k the parts stacked along a new axis
// (in reverse order when reversed), as the Loop and Scan kernels do.
func (u *unroller) stackOutput(k int, parts []string, axis int64, reversed bool) {
	if k >= len(u.n.Outputs) || u.n.Outputs[k] == "" {
		return
	}
	out := u.n.Outputs[k]
	if len(parts) == 1 {
		u.nodes = append(u.nodes, &canon.Node{Name: u.nm.fresh(u.n.Name + "/" + out), Op: &canon.Unsqueeze{Axes: []int64{axis}},
			Inputs: []string{parts[0]}, Outputs: []string{out}})
		return
	}
	cat := &canon.Node{Name: u.nm.fresh(u.n.Name + "/" + out), Op: &canon.Concat{Axis: axis}, Outputs: []string{out}}
	for s := range parts {
		p := parts[s]
		if reversed {
			p = parts[len(parts)-1-s]
		}
		v := u.nm.fresh(out + "/" + strconv.Itoa(s))
		u.nodes = append(u.nodes, &canon.Node{Name: v, Op: &canon.Unsqueeze{Axes: []int64{axis}},
			Inputs: []string{p}, Outputs: []string{v}})
		cat.Inputs = append(cat.Inputs, v)
	}
	u.nodes = append(u.nodes, cat)
}

// constant adds a scalar initializer for the copies.
func (u *unroller) constant(base string, t *canon.Tensor) string {
	t.Name = u.nm.fresh(u.n.Name + "/" + base)
	u.newInits = append(u.newInits, t)
	return t.Name
}

// bodyAlwaysContinues reports that a Loop body's condition output is true
// whenever its condition input is: the input passed through (Identity
// chains too) or a constant true.
func bodyAlwaysContinues(body *canon.Graph) bool {
	name := body.Outputs[0].Name
	producer := map[string]*canon.Node{}
	for _, n := range body.Nodes {
		for _, o := range n.Outputs {
			producer[o] = n
		}
	}
	for range len(body.Nodes) + 1 {
		if name == body.Inputs[1].Name {
			return true
		}
		for _, t := range body.Initializers {
			if t.Name == name {
				return isConstantTrue(t)
			}
		}
		p := producer[name]
		if p == nil {
			return false
		}
		switch op := p.Op.(type) {
		case *canon.Constant:
			return isConstantTrue(op.Value)
		case *canon.Identity:
			name = p.Inputs[0]
		default:
			return false
		}
	}
	return false
}

func isConstantTrue(t *canon.Tensor) bool {
	return t != nil && t.DType == canon.Bool && len(t.Data) == 1 && t.Data[0] != 0
}

// usesValue reports that a node of g reads name or g lists it as an output.
func usesValue(g *canon.Graph, name string) bool {
	for _, o := range g.Outputs {
		if o.Name == name {
			return true
		}
	}
	for _, n := range g.Nodes {
		if slices.Contains(n.Inputs, name) {
			return true
		}
	}
	return false
}
