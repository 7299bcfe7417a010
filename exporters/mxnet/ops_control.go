package mxnetexport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Control flow. MXNet 1.x's _cond, _while_loop and _foreach take whole
// symbols as subgraphs (facts from src/operator/control_flow.cc;
// _while_loop needs a max_iterations known before running and stacks its
// step outputs to max_iterations rows, however many iterations ran).
// _cond (src/operator/control_flow.cc) owns
// three subgraphs, each a whole symbol in the node's "subgraphs": cond
// (one output, true when nonzero), then and else. Its inputs are the
// union of what the three read; cond_input_locs, then_input_locs and
// else_input_locs give, for each subgraph input in order, its position
// among the node's inputs. A subgraph's inputs are its variables in the
// order a depth-first walk from its heads meets them (how MXNet indexes a
// graph), so the written subgraph lists its nodes in that order.

func init() {
	optable.Add(&writers, map[string]opWriter{
		"If":   {"_cond (subgraphs: cond = _copy of the condition, then, else; weights the branches read become inputs of the node)", (*exporter).writeIf},
		"Loop": {"_while_loop (a trip count known before running, no condition input, a body that reads neither the iteration number nor the condition; cond subgraph _ones)", (*exporter).writeLoop},
		"Scan": {"_foreach (scan inputs and outputs along axis 0, forward; every state and scan input read by the body)", (*exporter).writeScan},
	})
}

// subInput is one input of a written subgraph: an outer value, or a
// constant of the subgraph made a parameter of the outer graph. name is
// the subgraph's own name for it.
type subInput struct {
	outer string
	konst *canon.Tensor
	name  string
}

// ref returns the outer graph's node for in: the outer value, or the
// constant written as a parameter named after node and the constant.
func (in subInput) ref(e *exporter, node string) (ref, error) {
	if in.konst != nil {
		return e.param(node+"_"+in.konst.Name, in.konst)
	}
	return e.value(in.outer)
}

// subgraph writes scope (a subgraph as it runs inside its node, its
// inputs bound to outer values by bind) as a symbol, and returns it with
// its inputs in order.
func (e *exporter) subgraph(attr string, scope *canon.Graph, bind map[string]string) (*jsonSymbol, []subInput, error) {
	typed := *scope
	typed.Outputs = append([]canon.ValueInfo(nil), scope.Outputs...)
	if err := typed.Infer(); err != nil {
		return nil, nil, fmt.Errorf("subgraph %s: %w", attr, err)
	}
	g, _, err := canon.Decompose(&typed, writesDirectly)
	if err != nil {
		return nil, nil, fmt.Errorf("subgraph %s: %w", attr, err)
	}
	sub := &exporter{g: g, refs: map[string]ref{}, names: map[string]bool{}, consts: map[string]*canon.Tensor{}, aux: map[string]bool{}, written: map[string]bool{}}
	for _, t := range g.Initializers {
		sub.consts[t.Name] = t
	}
	for _, n := range g.Nodes {
		if c, ok := n.Op.(*canon.Constant); ok && len(n.Outputs) == 1 {
			t := *c.Value
			t.Name = n.Outputs[0]
			sub.consts[n.Outputs[0]] = &t
		}
	}
	for _, v := range g.Inputs {
		sub.variable(v.Name, nil)
	}
	for _, n := range g.Nodes {
		if err := sub.node(n); err != nil {
			return nil, nil, fmt.Errorf("subgraph %s: node %s (%s): %w", attr, n.Name, n.Op.Kind(), err)
		}
	}
	var heads []ref
	for _, o := range g.Outputs {
		r, err := sub.value(o.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("subgraph %s: output %s: %w", attr, o.Name, err)
		}
		if sub.nodes[r.node].Op == "null" {
			// A subgraph's output may not be one of its inputs.
			r = ref{sub.add("_copy", o.Name+"_copy", nil, 1, r), 0}
		}
		heads = append(heads, r)
	}
	valueOf := map[int]string{}
	for name, r := range sub.refs {
		if sub.nodes[r.node].Op == "null" {
			valueOf[r.node] = name
		}
	}
	js, order := dfsSymbol(sub.nodes, sub.nout, heads)
	var ins []subInput
	for _, old := range order {
		if sub.nodes[old].Op != "null" {
			continue
		}
		name := valueOf[old]
		if outer, ok := bind[name]; ok {
			ins = append(ins, subInput{outer: outer, name: name})
		} else if t, ok := sub.consts[name]; ok {
			ins = append(ins, subInput{konst: t, name: name})
		} else {
			return nil, nil, fmt.Errorf("subgraph %s reads %s, which is neither an input nor a constant", attr, name)
		}
	}
	return js, ins, nil
}

// dfsSymbol is the symbol of nodes (nout outputs each) reachable from
// heads, in the order a depth-first walk from the heads visits them (each
// node after its inputs), as MXNet indexes a graph. order maps new
// positions to old ones.
func dfsSymbol(nodes []jsonNode, nout []int, heads []ref) (*jsonSymbol, []int) {
	pos := map[int]int{}
	var order []int
	var visit func(i int)
	visit = func(i int) {
		if _, done := pos[i]; done {
			return
		}
		pos[i] = -1
		for _, in := range nodes[i].Inputs {
			visit(in[0])
		}
		pos[i] = len(order)
		order = append(order, i)
	}
	for _, h := range heads {
		visit(h.node)
	}
	js := &jsonSymbol{ArgNodes: []int{}, NodeRowPtr: []int{0}}
	for k, old := range order {
		n := nodes[old]
		in := make([][3]int, len(n.Inputs))
		for j, r := range n.Inputs {
			in[j] = [3]int{pos[r[0]], r[1], 0}
		}
		n.Inputs = in
		js.Nodes = append(js.Nodes, n)
		if n.Op == "null" {
			js.ArgNodes = append(js.ArgNodes, k)
		}
		js.NodeRowPtr = append(js.NodeRowPtr, js.NodeRowPtr[k]+nout[old])
	}
	for _, h := range heads {
		js.Heads = append(js.Heads, [3]int{pos[h.node], h.index, 0})
	}
	return js, order
}

// nodeInputs gathers the inputs of a control-flow node: each subgraph's
// inputs, the same outer value once, and returns the refs and each
// subgraph's locations among them.
func (e *exporter) nodeInputs(n *canon.Node, subs ...[]subInput) ([]ref, [][]int, error) {
	var refs []ref
	at := map[ref]int{}
	locs := make([][]int, len(subs))
	for k, ins := range subs {
		for _, in := range ins {
			r, err := in.ref(e, n.Name)
			if err != nil {
				return nil, nil, err
			}
			i, ok := at[r]
			if !ok {
				i = len(refs)
				at[r] = i
				refs = append(refs, r)
			}
			locs[k] = append(locs[k], i)
		}
	}
	return refs, locs, nil
}

// locList formats locations as MXNet's tuple attribute, "[0, 2]".
func locList(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// captureBinding maps each capture of a control-flow node to the outer
// value the node passes for it.
func captureBinding(n *canon.Node) map[string]string {
	bind := map[string]string{}
	o := n.Op.(canon.SubgraphOwner)
	outer := canon.CaptureInputs(n)
	for i, c := range o.CaptureNames() {
		bind[c] = outer[i]
	}
	return bind
}

// scopes returns the node's subgraphs typed as they run inside it.
func (e *exporter) scopes(n *canon.Node) ([]canon.NamedGraph, error) {
	in := make([]canon.ValueInfo, len(n.Inputs))
	for i, name := range n.Inputs {
		if name != "" {
			in[i] = e.g.Values.Get(name)
		}
	}
	return canon.SubgraphScopes(n, in)
}

func (e *exporter) writeIf(n *canon.Node) error {
	scopes, err := e.scopes(n)
	if err != nil {
		return err
	}
	bind := captureBinding(n)
	then, thenIns, err := e.subgraph("then_branch", scopes[0].Graph, bind)
	if err != nil {
		return err
	}
	els, elseIns, err := e.subgraph("else_branch", scopes[1].Graph, bind)
	if err != nil {
		return err
	}
	if len(then.Heads) == 0 {
		return fmt.Errorf("an If without outputs computes nothing MXNet's _cond can return")
	}
	// cond: the condition itself, through a _copy (inputs and outputs of a
	// subgraph may not overlap).
	cond := &jsonSymbol{
		Nodes: []jsonNode{{Op: "null", Name: "cond", Inputs: [][3]int{}},
			{Op: "_copy", Name: "cond_copy", Inputs: [][3]int{{0, 0, 0}}}},
		ArgNodes: []int{0}, NodeRowPtr: []int{0, 1, 2}, Heads: [][3]int{{1, 0, 0}}}
	condIn := subInput{outer: n.Inputs[0]}
	if t, ok := e.consts[n.Inputs[0]]; ok && len(t.Shape) == 0 {
		// MXNet params hold no 0-d arrays: a condition known before running
		// is stored as one element, which _cond reads the same.
		one := *t
		one.Name, one.Shape = n.Inputs[0]+"_1d", []int64{1}
		condIn = subInput{konst: &one}
	}
	refs, locs, err := e.nodeInputs(n, []subInput{condIn}, thenIns, elseIns)
	if err != nil {
		return err
	}
	nout := len(then.Heads)
	attrs := map[string]string{
		"num_args": strconv.Itoa(len(refs) + 3), "num_outputs": strconv.Itoa(nout),
		"cond_input_locs": locList(locs[0]), "then_input_locs": locList(locs[1]), "else_input_locs": locList(locs[2]),
	}
	idx := e.add("_cond", n.Name, attrs, nout, refs...)
	e.nodes[idx].Subgraphs = []jsonSymbol{*cond, *then, *els}
	for k, o := range n.Outputs {
		if o != "" {
			e.refs[o] = ref{idx, k}
		}
	}
	return nil
}

// writeScan writes a Scan as MXNet's _foreach: the node's inputs are its
// body's, in order; in_state_locs and in_data_locs say which are the
// states and the sliced inputs; the body yields the per-step outputs
// first, then the new states, and so does the node.
func (e *exporter) writeScan(n *canon.Node) error {
	op := n.Op.(*canon.Scan)
	ns, m, k := op.States(), int(op.NumScanInputs), op.ScanOutputCount()
	for j := 0; j < m; j++ {
		r, _ := e.rank(n.Inputs[ns+j])
		if a := op.InputAxis(j); (a != 0 && a != -int64(r)) || op.InputReversed(j) {
			return fmt.Errorf("scan input %d runs along axis %d%s; MXNet's _foreach iterates forward along axis 0", j, a, reversedWord(op.InputReversed(j)))
		}
	}
	for j := 0; j < k; j++ {
		if a := op.OutputAxis(j); a != 0 || op.OutputReversed(j) {
			return fmt.Errorf("scan output %d is stacked along axis %d%s; MXNet's _foreach stacks forward along axis 0", j, a, reversedWord(op.OutputReversed(j)))
		}
	}
	scopes, err := e.scopes(n)
	if err != nil {
		return err
	}
	body := scopes[0].Graph
	bind := captureBinding(n)
	role := map[string]int{} // formal input name -> index among states and scan inputs
	for i := 0; i < ns+m; i++ {
		bind[body.Inputs[i].Name] = n.Inputs[i]
		role[body.Inputs[i].Name] = i
	}
	// MXNet's body yields the per-step outputs, then the states.
	reordered := *body
	reordered.Outputs = append(append([]canon.ValueInfo(nil), body.Outputs[ns:]...), body.Outputs[:ns]...)
	js, ins, err := e.subgraph("body", &reordered, bind)
	if err != nil {
		return err
	}
	stateLocs, dataLocs := make([]int, ns), make([]int, m)
	found := make([]bool, ns+m)
	refs := make([]ref, len(ins))
	for pos, in := range ins {
		if i, ok := role[in.name]; ok {
			found[i] = true
			if i < ns {
				stateLocs[i] = pos
			} else {
				dataLocs[i-ns] = pos
			}
		}
		r, err := in.ref(e, n.Name)
		if err != nil {
			return err
		}
		refs[pos] = r
	}
	for i, ok := range found {
		if !ok {
			return fmt.Errorf("the body does not read %s %q; MXNet's _foreach takes only the inputs its body reads, and needs every state and scan input", map[bool]string{true: "state", false: "scan input"}[i < ns], body.Inputs[i].Name)
		}
	}
	attrs := map[string]string{
		"num_args": strconv.Itoa(len(refs) + 1), "num_outputs": strconv.Itoa(k + ns), "num_out_data": strconv.Itoa(k),
		"in_state_locs": locList(stateLocs), "in_data_locs": locList(dataLocs),
	}
	idx := e.add("_foreach", n.Name, attrs, k+ns, refs...)
	e.nodes[idx].Subgraphs = []jsonSymbol{*js}
	for i, o := range n.Outputs {
		if o == "" {
			continue
		}
		at := k + i // a final state
		if i >= ns {
			at = i - ns // a scan output
		}
		e.refs[o] = ref{idx, at}
	}
	return nil
}

func reversedWord(r bool) string {
	if r {
		return ", reversed"
	}
	return ""
}

// writeLoop writes a Loop as MXNet's _while_loop when MXNet computes the
// same: a trip count known before running and no condition input (so the
// loop runs exactly max_iterations times and the step outputs, which
// _while_loop stacks to max_iterations rows, have one row per iteration),
// and a body that reads neither the iteration number nor the condition
// (0-d values MXNet 1.x does not have). The cond subgraph is a constant
// one; func is the body, its step outputs first, then the loop variables.
func (e *exporter) writeLoop(n *canon.Node) error {
	op := n.Op.(*canon.Loop)
	if len(n.Inputs) > 1 && n.Inputs[1] != "" {
		return fmt.Errorf("the loop has a condition input: MXNet's _while_loop would stack its step outputs to max_iterations rows however many iterations ran, and the condition is a 0-d value MXNet 1.x does not have; only loops with a trip count known before running and no condition are written")
	}
	trip, ok := int64(0), false
	if len(n.Inputs) > 0 && n.Inputs[0] != "" {
		if c := e.g.Values.Get(n.Inputs[0]).Const; c != nil {
			if v, err := c.Int64s(); err == nil && len(v) == 1 {
				trip, ok = v[0], true
			}
		}
	}
	if !ok || trip < 1 {
		return fmt.Errorf("MXNet's _while_loop needs max_iterations, a trip count of at least 1 known before running")
	}
	scopes, err := e.scopes(n)
	if err != nil {
		return err
	}
	body := scopes[0].Graph
	nc, ns := op.Carried(), op.ScanOutputs()
	if nc == 0 {
		return fmt.Errorf("MXNet's _while_loop needs at least one loop variable")
	}
	bind := captureBinding(n)
	// The iteration number and the condition are bound to nothing: the
	// written body must not read them (the condition output, which reads
	// the condition, is not written).
	formal := map[string]string{body.Inputs[0].Name: "iteration number", body.Inputs[1].Name: "condition"}
	for name := range formal {
		bind[name] = ""
	}
	carried := map[string]int{}
	for i := 0; i < nc; i++ {
		bind[body.Inputs[2+i].Name] = n.Inputs[2+i]
		carried[body.Inputs[2+i].Name] = i
	}
	reordered := *body
	reordered.Outputs = append(append([]canon.ValueInfo(nil), body.Outputs[1+nc:]...), body.Outputs[1:1+nc]...)
	js, ins, err := e.subgraph("body", &reordered, bind)
	if err != nil {
		return err
	}
	varLocs := make([]int, nc)
	found := make([]bool, nc)
	refs := make([]ref, len(ins))
	funcLocs := make([]int, len(ins))
	for pos, in := range ins {
		if what, ok := formal[in.name]; ok {
			return fmt.Errorf("the body reads its %s, a 0-d value MXNet 1.x does not have", what)
		}
		if i, ok := carried[in.name]; ok {
			varLocs[i], found[i] = pos, true
		}
		r, err := in.ref(e, n.Name)
		if err != nil {
			return err
		}
		refs[pos], funcLocs[pos] = r, pos
	}
	for i, ok := range found {
		if !ok {
			return fmt.Errorf("the body does not read carried value %q; MXNet's _while_loop needs every loop variable read", body.Inputs[2+i].Name)
		}
	}
	cond := &jsonSymbol{
		Nodes:    []jsonNode{{Op: "_ones", Name: "always", Attrs: map[string]string{"shape": "(1,)"}, Inputs: [][3]int{}}},
		ArgNodes: []int{}, NodeRowPtr: []int{0, 1}, Heads: [][3]int{{0, 0, 0}}}
	attrs := map[string]string{
		"num_args": strconv.Itoa(len(refs) + 2), "num_outputs": strconv.Itoa(ns + nc), "num_out_data": strconv.Itoa(ns),
		"max_iterations": strconv.FormatInt(trip, 10), "cond_input_locs": "[]",
		"func_input_locs": locList(funcLocs), "func_var_locs": locList(varLocs),
	}
	idx := e.add("_while_loop", n.Name, attrs, ns+nc, refs...)
	e.nodes[idx].Subgraphs = []jsonSymbol{*cond, *js}
	for i, o := range n.Outputs {
		if o == "" {
			continue
		}
		at := ns + i // a final loop variable
		if i >= nc {
			at = i - nc // a step output
		}
		e.refs[o] = ref{idx, at}
	}
	return nil
}
