package onnximport

import (
	"fmt"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	// If-1..19+, Loop-1..16+ and Scan-9..19+ differ only in the types they
	// admit (sequences and optionals from 16, more float types later);
	// Scan-8 (a batch axis and sequence_lens) is read by convScan8.
	optable.Add(&ops, map[string]opEntry{
		"If":   {convIf, 1, []string{"If"}},
		"Loop": {convLoop, 1, []string{"Loop"}},
		"Scan": {convScan, 8, []string{"Scan", "Loop", "Constant", "Shape", "Squeeze"}},
	})
}

// nodeReads lists the values a node reads: its inputs, then the outer
// values its subgraphs read (ONNX leaves those implicit).
func nodeReads(n *onnxpb.NodeProto) []string {
	has := false
	for _, a := range n.Attribute {
		has = has || a.G != nil || len(a.Graphs) > 0
	}
	if !has {
		return n.Input
	}
	out := append([]string{}, n.Input...)
	for _, a := range n.Attribute {
		if a.G != nil {
			out = append(out, freeValues(a.G)...)
		}
		for _, g := range a.Graphs {
			out = append(out, freeValues(g)...)
		}
	}
	return out
}

// freeValues lists, sorted, the names gp reads that it does not define:
// the enclosing scopes' values it uses, its nested subgraphs' included.
func freeValues(gp *onnxpb.GraphProto) []string {
	defined := map[string]bool{"": true}
	for _, v := range gp.Input {
		defined[v.GetName()] = true
	}
	for _, t := range gp.Initializer {
		defined[t.GetName()] = true
	}
	for _, n := range gp.Node {
		for _, o := range n.Output {
			defined[o] = true
		}
	}
	free := map[string]bool{}
	for _, n := range gp.Node {
		for _, in := range nodeReads(n) {
			if !defined[in] {
				free[in] = true
			}
		}
	}
	for _, o := range gp.Output {
		if !defined[o.GetName()] {
			free[o.GetName()] = true
		}
	}
	out := make([]string, 0, len(free))
	for name := range free {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// graphAttr returns the named GRAPH attribute.
func (c *nodeCtx) graphAttr(name string) *onnxpb.GraphProto {
	a := c.attr(name, onnxpb.AttributeProto_GRAPH)
	if a == nil || a.G == nil {
		c.fail("needs its %s attribute (a graph)", name)
		return nil
	}
	return a.G
}

// subgraph converts gp, read in this node's scope, into a canonical graph.
// formal gives the types of gp's inputs where the file leaves them out
// (their dtype only, when given). It returns the graph and the names of
// the outer values it reads.
func (c *nodeCtx) subgraph(attr string, gp *onnxpb.GraphProto, formal []canon.ValueInfo) (*canon.Graph, []string, error) {
	if c.err != nil {
		return nil, nil, c.err
	}
	parent := c.im
	sub := &importer{opts: parent.opts, g: &canon.Graph{Name: gp.GetName()}, tr: parent.tr, opset: parent.opset, mlOpset: parent.mlOpset,
		vals: canon.NewValueTable(0), inits: map[string]*canon.Tensor{}, uses: &valueUses{},
		outputs: map[string]bool{}, freshNames: map[string]bool{}, transposed: map[string]string{}}
	fail := func(err error) (*canon.Graph, []string, error) {
		return nil, nil, c.errf("subgraph %s: %v", attr, err)
	}
	// Names made inside must not shadow any outer value.
	for name := range parent.vals.All() {
		sub.freshNames[name] = true
	}
	for name := range parent.freshNames {
		sub.freshNames[name] = true
	}
	free := freeValues(gp)
	for _, name := range free {
		v, ok := parent.vals.Lookup(name)
		if !ok {
			return fail(fmt.Errorf("reads %q, which is defined neither inside it nor before the node", name))
		}
		sub.vals.Set(name, v)
	}
	if len(gp.SparseInitializer) > 0 {
		return fail(fmt.Errorf("sparse initializers are not supported; densify them before converting"))
	}
	for i, tp := range gp.Initializer {
		msg, err := proto.Marshal(tp)
		if err != nil {
			return fail(fmt.Errorf("initializer %d: %v", i, err))
		}
		t, err := parent.tr.Decode(msg)
		if err != nil {
			return fail(fmt.Errorf("initializer %d: %w", i, err))
		}
		if t.Name == "" || sub.inits[t.Name] != nil {
			return fail(fmt.Errorf("initializer %d has no name or a duplicate one (%q)", i, t.Name))
		}
		sub.inits[t.Name] = t
		sub.vals.Set(t.Name, constInfo(t))
		sub.g.Initializers = append(sub.g.Initializers, t)
	}
	for i, vi := range gp.Input {
		v, err := valueInfo(vi)
		if err != nil {
			return fail(fmt.Errorf("input %q: %w", vi.GetName(), err))
		}
		if vi.GetType().GetValue() == nil && i < len(formal) {
			v.Kind = formal[i].Kind
		}
		if v.DType == canon.Undefined && i < len(formal) {
			v.DType = formal[i].DType
		}
		if !v.RankKnown && i < len(formal) && formal[i].RankKnown {
			v.Shape, v.RankKnown = formal[i].Shape, true
		}
		if sub.inits[v.Name] != nil {
			return fail(fmt.Errorf("input %q is also an initializer", v.Name))
		}
		sub.g.Inputs = append(sub.g.Inputs, v)
		sub.vals.Set(v.Name, v)
	}
	for _, vi := range gp.Output {
		v, err := valueInfo(vi)
		if err != nil {
			return fail(fmt.Errorf("output %q: %w", vi.GetName(), err))
		}
		sub.g.Outputs = append(sub.g.Outputs, v)
		sub.outputs[v.Name] = true
		sub.uses.add(v.Name)
	}
	for _, n := range gp.Node {
		for _, in := range nodeReads(n) {
			sub.uses.add(in)
		}
	}
	nodes := &fileNodes{decoded: gp.Node}
	order, err := sub.sortNodes(nodes)
	if err != nil {
		return fail(err)
	}
	names, err := sub.nodeNamesFor(nodes)
	if err != nil {
		return fail(err)
	}
	for k := range gp.Node {
		i := k
		if order != nil {
			i = order[k]
		}
		if err := sub.convertNode(gp.Node[i], nodeName(names, i, gp.Node[i])); err != nil {
			return fail(err)
		}
	}
	for i, out := range sub.g.Outputs {
		v, ok := sub.vals.Lookup(out.Name)
		if !ok {
			return fail(fmt.Errorf("output %q is not computed", out.Name))
		}
		if out.DType == canon.Undefined && !out.RankKnown {
			sub.g.Outputs[i].Kind = v.Kind
		}
		if out.DType == canon.Undefined {
			sub.g.Outputs[i].DType = v.DType
		}
		if !out.RankKnown && v.RankKnown {
			sub.g.Outputs[i].Shape, sub.g.Outputs[i].RankKnown = v.Shape, true
		}
	}
	sub.assignLayouts()
	// The captures are the outer values the canonical graph still reads
	// (an import may fold a constant and read it no more).
	captured := capturesOf(sub.g, free)
	// A value declared as both a subgraph output and an outer value is
	// read, not computed, inside: it is a capture too.
	return sub.g, captured, nil
}

// capturesOf lists the names among candidates that g reads without
// defining.
func capturesOf(g *canon.Graph, candidates []string) []string {
	defined := map[string]bool{}
	for _, v := range g.Inputs {
		defined[v.Name] = true
	}
	for _, t := range g.Initializers {
		defined[t.Name] = true
	}
	read := map[string]bool{}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			defined[o] = true
		}
		for _, in := range n.Inputs {
			read[in] = true
		}
	}
	for _, o := range g.Outputs {
		read[o.Name] = true
	}
	var out []string
	for _, name := range candidates {
		if read[name] && !defined[name] {
			out = append(out, name)
		}
	}
	return out
}

// union merges sorted name lists.
func union(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

func convIf(c *nodeCtx) error {
	thenGP, elseGP := c.graphAttr("then_branch"), c.graphAttr("else_branch")
	if c.err != nil {
		return c.err
	}
	then, capThen, err := c.subgraph("then_branch", thenGP, nil)
	if err != nil {
		return err
	}
	els, capElse, err := c.subgraph("else_branch", elseGP, nil)
	if err != nil {
		return err
	}
	caps := union(capThen, capElse)
	op := &canon.If{Then: then, Else: els, Captures: caps}
	return c.emit(op, append([]string{c.in(0)}, caps...), c.n.Output)
}

func convLoop(c *nodeCtx) error {
	gp := c.graphAttr("body")
	if c.err != nil {
		return c.err
	}
	carried := max(len(c.n.Input)-2, 0)
	formal := []canon.ValueInfo{{DType: canon.Int64, RankKnown: true}, {DType: canon.Bool, RankKnown: true}}
	for i := 0; i < carried; i++ {
		formal = append(formal, canon.ValueInfo{DType: c.info(2 + i).DType, Kind: c.info(2 + i).Kind})
	}
	body, caps, err := c.subgraph("body", gp, formal)
	if err != nil {
		return err
	}
	if len(body.Inputs) != 2+carried {
		return c.errf("the body takes %d inputs; with %d carried values it needs %d (iteration, condition, carried...)", len(body.Inputs), carried, 2+carried)
	}
	if len(body.Outputs) < 1+carried {
		return c.errf("the body yields %d outputs; with %d carried values it needs at least %d", len(body.Outputs), carried, 1+carried)
	}
	ins := []string{c.in(0), c.in(1)}
	for i := 0; i < carried; i++ {
		ins = append(ins, c.in(2+i))
	}
	op := &canon.Loop{Body: body, Captures: caps}
	return c.emit(op, append(ins, caps...), c.n.Output)
}

func convScan(c *nodeCtx) error {
	if c.im.opset < 9 {
		return convScan8(c)
	}
	gp := c.graphAttr("body")
	if !c.has("num_scan_inputs") {
		c.fail("needs its num_scan_inputs attribute")
	}
	m := c.int("num_scan_inputs", 0)
	if c.err != nil {
		return c.err
	}
	if m < 1 || int(m) > len(c.n.Input) {
		return c.errf("num_scan_inputs %d must be between 1 and the node's %d inputs", m, len(c.n.Input))
	}
	states := len(c.n.Input) - int(m)
	var formal []canon.ValueInfo
	for i := 0; i < states; i++ {
		formal = append(formal, canon.ValueInfo{DType: c.info(i).DType})
	}
	for j := 0; j < int(m); j++ {
		formal = append(formal, canon.ValueInfo{DType: c.info(states + j).DType})
	}
	body, caps, err := c.subgraph("body", gp, formal)
	if err != nil {
		return err
	}
	op := &canon.Scan{Body: body, NumScanInputs: m, InputAxes: c.ints("scan_input_axes"),
		InputDirections: c.ints("scan_input_directions"), OutputAxes: c.ints("scan_output_axes"),
		OutputDirections: c.ints("scan_output_directions"), Captures: caps}
	return c.emit(op, append(append([]string{}, c.n.Input...), caps...), c.n.Output)
}
