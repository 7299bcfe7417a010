package mxnetimport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/mxparams"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// MXNet 1.x's _cond (src/operator/control_flow.cc): subgraphs cond (one
// output; nonzero selects then), then and else, each a whole symbol whose
// inputs are its variables in node order; cond_input_locs,
// then_input_locs and else_input_locs place each subgraph input among the
// node's inputs. It is read as the cond subgraph's nodes in the outer
// graph, a Cast to bool, and a canonical If whose branches read the
// node's inputs as captures.

func init() {
	optable.Add(&converters, map[string]mxOp{
		"_cond":       {convCond, []string{"If", "Cast"}},
		"_foreach":    {convForeach, []string{"Scan"}},
		"_while_loop": {convWhileLoop, []string{"Loop"}},
	})
}

// subgraphIn converts sub (a subgraph of c's node) with its variables,
// in node order, bound to the outer values ins[locs[j]]. It returns the
// graph (its inputs are the captures it reads, named capName(loc)) and the
// builder that made it.
func (b *builder) subgraphIn(c *nodeCtx, attr string, sub *symbol, locs []int64, ins []string, capName func(int) string, typeOf func(int) canon.ValueInfo) (*canon.Graph, *builder, error) {
	sb := &builder{file: b.file, sym: sub, opts: b.opts, budget: b.budget,
		g: &canon.Graph{Name: attr}, vals: map[string]canon.ValueInfo{}, used: map[string]bool{}, inits: map[string]*initUse{},
		inputOrder: map[string]int{}, outs: make([][]string, len(sub.Nodes)), taken: map[string]bool{}}
	for k := range b.taken {
		sb.taken[k] = true // names stay unique across scopes
	}
	j := 0
	for _, n := range sub.Nodes {
		if n.Op != "null" {
			continue
		}
		if j >= len(locs) {
			return nil, nil, c.errf("subgraph %s has more inputs than its %d locations", attr, len(locs))
		}
		loc := int(locs[j])
		if loc < 0 || loc >= len(ins) {
			return nil, nil, c.errf("subgraph %s input %d is at location %d; the node has %d inputs", attr, j, loc, len(ins))
		}
		// The variable reads outer value ins[loc] (typeOf gives its type).
		n.Name = capName(loc)
		vi := typeOf(loc)
		n.merged = attrMap{}
		if s, ok := vi.StaticShape(); ok && len(s) > 0 {
			n.merged["__shape__"] = tupleString(s)
		}
		if f, ok := mxparams.TypeFlag(vi.DType); ok {
			n.merged["__dtype__"] = strconv.Itoa(int(f))
		}
		j++
	}
	if j != len(locs) {
		return nil, nil, c.errf("subgraph %s has %d inputs for %d locations", attr, j, len(locs))
	}
	needed, err := sb.reachable()
	if err != nil {
		return nil, nil, err
	}
	for i, n := range sub.Nodes {
		if !needed[i] || n.Op == "null" {
			continue
		}
		outs, err := sb.convertNode(i, n)
		if err != nil {
			return nil, nil, c.errf("subgraph %s: %v", attr, err)
		}
		sb.outs[i] = outs
	}
	for k, h := range sub.Heads {
		v, err := sb.output(h)
		if err != nil {
			return nil, nil, c.errf("subgraph %s head %d: %v", attr, k, err)
		}
		vi := sb.vals[v]
		vi.Name, vi.Const = v, nil
		sb.g.Outputs = append(sb.g.Outputs, vi)
	}
	for k := range sb.taken {
		b.taken[k] = true
	}
	return sb.g, sb, nil
}

func tupleString(s []int64) string {
	out := "("
	for i, d := range s {
		if i > 0 {
			out += ", "
		}
		out += strconv.FormatInt(d, 10)
	}
	if len(s) == 1 {
		out += ","
	}
	return out + ")"
}

func convCond(b *builder, c *nodeCtx) ([]string, error) {
	if len(c.n.Subgraphs) != 3 {
		return nil, c.errf("has %d subgraphs; _cond has cond, then and else", len(c.n.Subgraphs))
	}
	nout, err := c.a.int("num_outputs", 0)
	if err != nil {
		return nil, err
	}
	ins, err := b.allInputs(c)
	if err != nil {
		return nil, err
	}
	capName, caps := b.captureNamer(c.n.Name)
	var graphs [3]*canon.Graph
	var subs [3]*builder
	for k, key := range []string{"cond_input_locs", "then_input_locs", "else_input_locs"} {
		locs, err := c.a.ints(key, []int64{})
		if err != nil {
			return nil, err
		}
		typeOf := func(loc int) canon.ValueInfo { return b.vals[ins[loc]] }
		if graphs[k], subs[k], err = b.subgraphIn(c, []string{"cond", "then_branch", "else_branch"}[k], c.n.Subgraphs[k], locs, ins, capName, typeOf); err != nil {
			return nil, err
		}
	}
	if len(graphs[0].Outputs) != 1 {
		return nil, c.errf("the cond subgraph has %d outputs; it must have one", len(graphs[0].Outputs))
	}
	if len(graphs[1].Outputs) != len(graphs[2].Outputs) || (nout > 0 && int(nout) != len(graphs[1].Outputs)) {
		return nil, c.errf("then has %d outputs, else %d, num_outputs is %d: they must agree", len(graphs[1].Outputs), len(graphs[2].Outputs), nout)
	}
	// The cond subgraph runs in the outer graph: its inputs are the outer
	// values they stand for.
	outerOf := map[string]string{}
	for loc, name := range caps {
		outerOf[name] = ins[loc]
	}
	pred, err := b.inline(graphs[0], subs[0], outerOf)
	if err != nil {
		return nil, c.errf("cond subgraph: %v", err)
	}
	if b.vals[pred].DType != canon.Bool {
		p := b.fresh(c.n.Name + "_pred")
		if err := b.emit(p, &canon.Cast{To: canon.Bool}, []string{pred}, p); err != nil {
			return nil, err
		}
		pred = p
	}
	// Both branches read their inputs as captures.
	seen := map[string]bool{}
	var captures, capIns []string
	for _, g := range graphs[1:] {
		for _, in := range g.Inputs {
			if !seen[in.Name] {
				seen[in.Name] = true
				captures = append(captures, in.Name)
				capIns = append(capIns, outerOf[in.Name])
			}
		}
		g.Inputs = nil
	}
	outs := make([]string, len(graphs[1].Outputs))
	for k := range outs {
		outs[k] = b.fresh(c.n.Name + "_output" + strconv.Itoa(k))
	}
	op := &canon.If{Then: graphs[1], Else: graphs[2], Captures: captures}
	if err := b.emit(b.fresh(c.n.Name), op, append([]string{pred}, capIns...), outs...); err != nil {
		return nil, err
	}
	return outs, nil
}

// inline adds the nodes and constants of g (built by sb) to b's graph,
// its inputs replaced by the outer values outerOf names, and returns the
// value of its one output.
func (b *builder) inline(g *canon.Graph, sb *builder, outerOf map[string]string) (string, error) {
	rename := func(v string) string {
		if o, ok := outerOf[v]; ok {
			return o
		}
		return v
	}
	for _, t := range g.Initializers {
		b.g.Initializers = append(b.g.Initializers, t)
		b.vals[t.Name] = sb.vals[t.Name]
	}
	for _, n := range g.Nodes {
		m := *n
		m.Inputs = make([]string, len(n.Inputs))
		for i, in := range n.Inputs {
			m.Inputs[i] = rename(in)
		}
		b.g.Nodes = append(b.g.Nodes, &m)
		for _, o := range n.Outputs {
			if o != "" {
				b.vals[o] = sb.vals[o]
			}
		}
	}
	out := rename(g.Outputs[0].Name)
	if _, ok := b.vals[out]; !ok {
		return "", fmt.Errorf("its output %s is not computed", out)
	}
	return out, nil
}

// convForeach reads MXNet's _foreach as a Scan along axis 0: the node's
// inputs are its body's, in_state_locs and in_data_locs pick the states
// and the sliced inputs (the others are read as captures), and the body
// and the node yield the per-step outputs before the final states.
func convForeach(b *builder, c *nodeCtx) ([]string, error) {
	if len(c.n.Subgraphs) != 1 {
		return nil, c.errf("has %d subgraphs; _foreach has one", len(c.n.Subgraphs))
	}
	k, err := c.a.int("num_out_data", 0)
	if err != nil {
		return nil, err
	}
	stateLocs, err := c.a.ints("in_state_locs", []int64{})
	if err != nil {
		return nil, err
	}
	dataLocs, err := c.a.ints("in_data_locs", []int64{})
	if err != nil {
		return nil, err
	}
	if len(dataLocs) == 0 {
		return nil, c.errf("in_data_locs is empty; _foreach iterates over at least one input")
	}
	ins, err := b.allInputs(c)
	if err != nil {
		return nil, err
	}
	role := map[int]string{}
	for _, l := range stateLocs {
		role[int(l)] = "state"
	}
	for _, l := range dataLocs {
		if role[int(l)] != "" {
			return nil, c.errf("input %d is both a state and a sliced input", l)
		}
		role[int(l)] = "data"
	}
	capName, _ := b.captureNamer(c.n.Name)
	typeOf := func(loc int) canon.ValueInfo {
		vi := b.vals[ins[loc]]
		if role[loc] == "data" && vi.RankKnown && len(vi.Shape) > 0 {
			vi.Shape = vi.Shape[1:] // one slice along axis 0
		}
		return vi
	}
	all := make([]int64, len(ins))
	for i := range all {
		all[i] = int64(i)
	}
	body, _, err := b.subgraphIn(c, "body", c.n.Subgraphs[0], all, ins, capName, typeOf)
	if err != nil {
		return nil, err
	}
	ns := len(stateLocs)
	if int(k) < 0 || len(body.Outputs) != int(k)+ns {
		return nil, c.errf("the body has %d outputs for %d per-step outputs and %d states", len(body.Outputs), k, ns)
	}
	byName := map[string]canon.ValueInfo{}
	for _, in := range body.Inputs {
		byName[in.Name] = in
	}
	var formal []canon.ValueInfo
	var nodeIns, captures, capIns []string
	for _, locs := range [][]int64{stateLocs, dataLocs} {
		for _, l := range locs {
			if l < 0 || int(l) >= len(ins) {
				return nil, c.errf("location %d is out of range for %d inputs", l, len(ins))
			}
			formal = append(formal, byName[capName(int(l))])
			nodeIns = append(nodeIns, ins[l])
		}
	}
	for loc := range ins {
		if role[loc] == "" {
			captures = append(captures, capName(loc))
			capIns = append(capIns, ins[loc])
		}
	}
	body.Inputs = formal
	// Canonical order: the states, then the per-step outputs.
	body.Outputs = append(append([]canon.ValueInfo(nil), body.Outputs[k:]...), body.Outputs[:k]...)
	op := &canon.Scan{Body: body, NumScanInputs: int64(len(dataLocs)), Captures: captures}
	outs := make([]string, ns+int(k))
	for i := range outs {
		outs[i] = b.fresh(c.n.Name + "_output" + strconv.Itoa(i))
	}
	if err := b.emit(b.fresh(c.n.Name), op, append(nodeIns, capIns...), outs...); err != nil {
		return nil, err
	}
	// MXNet's order: the per-step outputs, then the final states.
	return append(append([]string(nil), outs[ns:]...), outs[:ns]...), nil
}

// convWhileLoop reads MXNet's _while_loop as a Loop when its cond subgraph
// is a constant one (_ones): the loop then runs exactly max_iterations
// times, so the step outputs, which MXNet stacks to max_iterations rows,
// have one row per iteration, as a Loop's scan outputs. A computed cond
// is refused.
func convWhileLoop(b *builder, c *nodeCtx) ([]string, error) {
	if len(c.n.Subgraphs) != 2 {
		return nil, c.errf("has %d subgraphs; _while_loop has cond and func", len(c.n.Subgraphs))
	}
	cond := c.n.Subgraphs[0]
	if len(cond.Heads) != 1 || cond.Nodes[cond.Heads[0].Node].Op != "_ones" {
		return nil, c.errf("its cond subgraph computes the condition; only a constant one (_ones, a loop of exactly max_iterations) is read: MXNet stacks step outputs to max_iterations rows however many iterations run")
	}
	trip, err := c.a.int("max_iterations", 0)
	if err != nil {
		return nil, err
	}
	if trip < 1 {
		return nil, c.errf("max_iterations is %d; it must be at least 1", trip)
	}
	k, err := c.a.int("num_out_data", 0)
	if err != nil {
		return nil, err
	}
	funcLocs, err := c.a.ints("func_input_locs", []int64{})
	if err != nil {
		return nil, err
	}
	varLocs, err := c.a.ints("func_var_locs", []int64{})
	if err != nil {
		return nil, err
	}
	ins, err := b.allInputs(c)
	if err != nil {
		return nil, err
	}
	capName, _ := b.captureNamer(c.n.Name)
	typeOf := func(loc int) canon.ValueInfo { return b.vals[ins[loc]] }
	body, _, err := b.subgraphIn(c, "body", c.n.Subgraphs[1], funcLocs, ins, capName, typeOf)
	if err != nil {
		return nil, err
	}
	nv := len(varLocs)
	if int(k) < 0 || len(body.Outputs) != int(k)+nv {
		return nil, c.errf("the func subgraph has %d outputs for %d step outputs and %d loop variables", len(body.Outputs), k, nv)
	}
	isVar := map[string]bool{}
	var carriedIn []string
	formal := []canon.ValueInfo{
		{Name: b.fresh(c.n.Name + "_iteration"), DType: canon.Int64, RankKnown: true},
		{Name: b.fresh(c.n.Name + "_condition"), DType: canon.Bool, RankKnown: true},
	}
	for _, v := range varLocs {
		if v < 0 || int(v) >= len(body.Inputs) {
			return nil, c.errf("func_var_locs entry %d is out of range for the func's %d inputs", v, len(body.Inputs))
		}
		in := body.Inputs[v]
		if isVar[in.Name] {
			return nil, c.errf("func_var_locs names func input %d twice", v)
		}
		isVar[in.Name] = true
		formal = append(formal, in)
		carriedIn = append(carriedIn, ins[funcLocs[v]])
	}
	var captures, capIns []string
	for j, in := range body.Inputs {
		if !isVar[in.Name] {
			captures = append(captures, in.Name)
			capIns = append(capIns, ins[funcLocs[j]])
		}
	}
	// The body's condition output (ignored without a cond input) is its
	// condition input, through an Identity.
	condOut := b.fresh(c.n.Name + "_condition_out")
	body.Nodes = append(body.Nodes, &canon.Node{Name: condOut, Op: &canon.Identity{}, Inputs: []string{formal[1].Name}, Outputs: []string{condOut}})
	body.Inputs = formal
	outsMX := body.Outputs
	body.Outputs = append([]canon.ValueInfo{{Name: condOut, DType: canon.Bool, RankKnown: true}}, outsMX[k:]...)
	body.Outputs = append(body.Outputs, outsMX[:k]...)
	m := b.fresh(c.n.Name + "_max_iterations")
	t := canon.NewInt64Tensor(m, []int64{}, []int64{trip})
	b.g.Initializers = append(b.g.Initializers, t)
	b.vals[m] = canon.ValueInfo{Name: m, DType: canon.Int64, RankKnown: true, Const: t}
	outs := make([]string, nv+int(k))
	for i := range outs {
		outs[i] = b.fresh(c.n.Name + "_output" + strconv.Itoa(i))
	}
	nodeIns := append(append([]string{m, ""}, carriedIn...), capIns...)
	if err := b.emit(b.fresh(c.n.Name), &canon.Loop{Body: body, Captures: captures}, nodeIns, outs...); err != nil {
		return nil, err
	}
	// MXNet's order: the step outputs, then the final loop variables.
	return append(append([]string(nil), outs[nv:]...), outs[:nv]...), nil
}

// allInputs resolves every input of the control-flow node.
func (b *builder) allInputs(c *nodeCtx) ([]string, error) {
	ins := make([]string, len(c.n.Inputs))
	for i := range c.n.Inputs {
		var err error
		if ins[i], err = b.in(c, i); err != nil {
			return nil, err
		}
	}
	return ins, nil
}

// captureNamer names the outer value a subgraph reads at input location
// loc of node, once per location; names holds the names given so far.
func (b *builder) captureNamer(node string) (name func(loc int) string, names map[int]string) {
	names = map[int]string{}
	return func(loc int) string {
		if n, ok := names[loc]; ok {
			return n
		}
		names[loc] = b.fresh(node + "_in" + strconv.Itoa(loc))
		return names[loc]
	}, names
}
