package torchexport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Control flow in model.py: If becomes a Python if/else, Loop a for or
// while loop, Scan a for loop over slices. A subgraph's nodes are written
// as ordinary forward() code inside the block; forward is one Python
// function, so every variable keeps a name unique in it.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"If": {write: writeIf,
			detail: "Python if/else on bool(cond); each branch's nodes written inside its block"},
		"Loop": {write: writeLoop,
			detail: "Python for over range(M), or while (iteration < M and cond); carried values reassigned together, scan outputs torch.stack'ed (no iteration: zero slices of the inferred shape, as the interpreter and ONNX Runtime give)"},
		"Scan": {write: writeScan,
			detail: "Python for over the slices (Tensor.select; reversed directions count down); scan outputs torch.stack'ed along their axes"},
	})
}

// genScope is the part of the generator a subgraph's code replaces while
// it is written.
type genScope struct {
	g       *canon.Graph
	inits   map[string]*canon.Tensor
	expr    map[string]string
	forward []string
	node    *canon.Node
}

func (gen *generator) saveScope() genScope {
	return genScope{g: gen.g, inits: gen.inits, expr: gen.expr, forward: gen.forward, node: gen.node}
}

func (gen *generator) restoreScope(s genScope) {
	gen.g, gen.inits, gen.expr, gen.forward, gen.node = s.g, s.inits, s.expr, s.forward, s.node
}

// subCode is one subgraph written as code: its lines (not yet indented)
// and the expression of each of its outputs.
type subCode struct {
	lines []string
	outs  []string
}

// scopes returns the current node's subgraphs typed as they run inside it.
func (gen *generator) scopes() ([]canon.NamedGraph, error) {
	n := gen.node
	in := make([]canon.ValueInfo, len(n.Inputs))
	for i, name := range n.Inputs {
		if name != "" {
			in[i] = gen.g.Values.Get(name)
		}
	}
	s, err := canon.SubgraphScopes(n, in)
	if err != nil {
		return nil, gen.fail("%v", err)
	}
	return s, nil
}

// writeSubgraph writes the nodes of scope (a subgraph as it runs inside the
// current node) as code. bind gives the expression of each of its formal
// inputs, in order; the captures are bound to the node's last inputs.
func (gen *generator) writeSubgraph(attr string, scope *canon.Graph, bind []string) (*subCode, error) {
	owner := gen.node.Op.(canon.SubgraphOwner)
	caps := owner.CaptureNames()
	first := len(gen.node.Inputs) - len(caps)
	names := map[string]string{}
	for i, e := range bind {
		names[scope.Inputs[i].Name] = e
	}
	for i, c := range caps {
		e, err := gen.in(first + i)
		if err != nil {
			return nil, err
		}
		names[c] = e
	}
	typed := *scope
	typed.Outputs = append([]canon.ValueInfo(nil), scope.Outputs...)
	if err := typed.Infer(); err != nil {
		return nil, gen.fail("subgraph %s: %v", attr, err)
	}
	sub, _, err := canon.Decompose(&typed, writtenAsIs)
	if err != nil {
		return nil, gen.fail("subgraph %s: %v", attr, err)
	}
	outer := gen.saveScope()
	defer gen.restoreScope(outer)
	gen.g, gen.inits, gen.expr, gen.forward = sub, sub.InitializerIndex(), names, nil
	for _, n := range sub.Nodes {
		gen.node = n
		if err := gen.emit(n); err != nil {
			return nil, fmt.Errorf("node %q (%s), subgraph %s: %w", outer.node.Name, outer.node.Op.Kind(), attr, err)
		}
	}
	code := &subCode{}
	for _, o := range sub.Outputs {
		e, err := gen.outputExpr(o.Name)
		if err != nil {
			return nil, fmt.Errorf("node %q (%s), subgraph %s: %w", outer.node.Name, outer.node.Op.Kind(), attr, err)
		}
		code.outs = append(code.outs, e)
	}
	code.lines = gen.forward
	return code, nil
}

// reads reports whether any node or output of g reads value name.
func reads(g *canon.Graph, name string) bool {
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			if in == name {
				return true
			}
		}
	}
	for _, o := range g.Outputs {
		if o.Name == name {
			return true
		}
	}
	return false
}

// indent prefixes each line with one level of Python indentation.
func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "    " + l
	}
	return out
}

// tupleAssign is `a, b = x, y`: Python evaluates the right side first, so
// values that read each other's old contents are all updated together.
func tupleAssign(vars, exprs []string) string {
	if len(vars) == 1 {
		return vars[0] + " = " + exprs[0]
	}
	return strings.Join(vars, ", ") + " = " + strings.Join(exprs, ", ")
}

// outVar is the variable of the current node's output i: the output's
// own when the node has it, a fresh one named after fallback otherwise.
func (gen *generator) outVar(i int, fallback string) string {
	if i < len(gen.node.Outputs) && gen.node.Outputs[i] != "" {
		return gen.out(i)
	}
	return gen.vars.claim(localName(fallback, "t"))
}

// plainVar is e as a value a loop may reassign: a weight of the module is
// copied, so the loop's result is never the module's own tensor.
func plainVar(e string) string {
	if strings.HasPrefix(e, "self.") || strings.HasPrefix(e, "getattr(self,") {
		return e + ".clone()"
	}
	return e
}

func writeIf(gen *generator, n *canon.Node) error {
	cond, err := gen.in(0)
	if err != nil {
		return err
	}
	scopes, err := gen.scopes()
	if err != nil {
		return err
	}
	then, err := gen.writeSubgraph(scopes[0].Attr, scopes[0].Graph, nil)
	if err != nil {
		return err
	}
	els, err := gen.writeSubgraph(scopes[1].Attr, scopes[1].Graph, nil)
	if err != nil {
		return err
	}
	var vars, thenOuts, elseOuts []string
	for i := range then.outs {
		if i < len(n.Outputs) && n.Outputs[i] != "" {
			vars = append(vars, gen.out(i))
			thenOuts = append(thenOuts, then.outs[i])
			elseOuts = append(elseOuts, els.outs[i])
		}
	}
	block := func(code *subCode, outs []string) []string {
		lines := append([]string(nil), code.lines...)
		if len(vars) > 0 {
			lines = append(lines, tupleAssign(vars, outs))
		}
		if len(lines) == 0 {
			lines = []string{"pass"}
		}
		return indent(lines)
	}
	gen.forward = append(gen.forward, "if bool("+cond+"):")
	gen.forward = append(gen.forward, block(then, thenOuts)...)
	gen.forward = append(gen.forward, "else:")
	gen.forward = append(gen.forward, block(els, elseOuts)...)
	return nil
}

// loopVars are the Python names a Loop's code uses.
type loopVars struct {
	iter    string   // the iteration number (a Python int)
	keep    string   // the condition (a Python bool); "" without a cond input
	carried []string // the carried values, which end as the node's outputs
	steps   []string // one list per scan output
}

func writeLoop(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Loop)
	hasM := len(n.Inputs) > 0 && n.Inputs[0] != ""
	hasCond := len(n.Inputs) > 1 && n.Inputs[1] != ""
	if !hasM && !hasCond {
		return gen.fail("it has neither a trip count nor a condition, so it never ends")
	}
	scopes, err := gen.scopes()
	if err != nil {
		return err
	}
	body := scopes[0].Graph
	nc, ns := op.Carried(), op.ScanOutputs()
	v := loopVars{iter: gen.vars.claim("i")}
	var pre []string
	trip := ""
	if hasM {
		if m, ok := gen.constInts(0); ok && len(m) == 1 {
			trip = strconv.FormatInt(m[0], 10)
		} else {
			e, err := gen.in(0)
			if err != nil {
				return err
			}
			trip = gen.vars.claim("trip_count")
			pre = append(pre, trip+" = int("+e+")")
		}
	}
	if hasCond {
		e, err := gen.in(1)
		if err != nil {
			return err
		}
		v.keep = gen.vars.claim("keep_going")
		pre = append(pre, v.keep+" = bool("+e+")")
	}
	for k := 0; k < nc; k++ {
		e, err := gen.in(2 + k)
		if err != nil {
			return err
		}
		c := gen.outVar(k, body.Inputs[2+k].Name)
		v.carried = append(v.carried, c)
		pre = append(pre, c+" = "+plainVar(e))
	}
	for j := 0; j < ns; j++ {
		s := gen.vars.claim(localName(body.Outputs[1+nc+j].Name, "scan") + "_steps")
		v.steps = append(v.steps, s)
		pre = append(pre, s+" = []")
	}
	// The body's formal inputs: the iteration number and the condition as
	// tensors (made only when the body reads them), then the carried values.
	var head []string
	bind := make([]string, 2+nc)
	if name := body.Inputs[0].Name; reads(body, name) {
		bind[0] = gen.vars.claim(localName(name, "iteration"))
		head = append(head, bind[0]+" = torch.tensor("+v.iter+", dtype=torch.int64)")
	}
	if name := body.Inputs[1].Name; reads(body, name) {
		bind[1] = gen.vars.claim(localName(name, "condition"))
		keep := "True" // without a cond input the body sees true
		if hasCond {
			keep = v.keep
		}
		head = append(head, bind[1]+" = torch.tensor("+keep+")")
	}
	copy(bind[2:], v.carried)
	code, err := gen.writeSubgraph(scopes[0].Attr, body, bind)
	if err != nil {
		return err
	}
	lines := append(head, code.lines...)
	// Scan outputs are appended before the carried values change: an
	// output may be a carried value as this iteration received it.
	for j, s := range v.steps {
		lines = append(lines, s+".append("+code.outs[1+nc+j]+")")
	}
	var vars, next []string
	if hasCond {
		vars, next = append(vars, v.keep), append(next, "bool("+code.outs[0]+")")
	}
	vars, next = append(vars, v.carried...), append(next, code.outs[1:1+nc]...)
	if len(vars) > 0 {
		lines = append(lines, tupleAssign(vars, next))
	}
	gen.forward = append(gen.forward, pre...)
	switch {
	case !hasCond:
		gen.forward = append(gen.forward, fmt.Sprintf("for %s in range(%s):", v.iter, trip))
	case hasM:
		gen.forward = append(gen.forward, v.iter+" = 0", fmt.Sprintf("while %s < %s and %s:", v.iter, trip, v.keep))
		lines = append(lines, v.iter+" += 1")
	default:
		gen.forward = append(gen.forward, v.iter+" = 0", "while "+v.keep+":")
		lines = append(lines, v.iter+" += 1")
	}
	if len(lines) == 0 {
		lines = []string{"pass"}
	}
	gen.forward = append(gen.forward, indent(lines)...)
	for j, s := range v.steps {
		if nc+j >= len(n.Outputs) || n.Outputs[nc+j] == "" {
			continue
		}
		out := gen.out(nc + j)
		gen.forward = append(gen.forward, fmt.Sprintf("%s = %s", out, stacked(s, "0", gen.emptyScanShape(n.Outputs[nc+j], 0), gen.dtypeOf(n.Outputs[nc+j]))))
	}
	return nil
}

// stacked is the expression stacking list s along axis, or, when the list
// is empty, the tensor of zero slices the interpreter gives: empty is its
// shape.
func stacked(s, axis, empty, dt string) string {
	return fmt.Sprintf("torch.stack(%s, dim=%s) if len(%s) > 0 else torch.zeros(%s, dtype=%s)", s, axis, s, empty, dt)
}

// emptyScanShape is the shape of scan output name when no iteration ran:
// zero along axis and the inferred size elsewhere, when every other size
// is known; (0,) otherwise (as the interpreter's emptyScan).
func (gen *generator) emptyScanShape(name string, axis int64) string {
	v, ok := gen.g.Values.Lookup(name)
	if !ok || !v.RankKnown || len(v.Shape) == 0 {
		return "(0,)"
	}
	if axis < 0 {
		axis += int64(len(v.Shape))
	}
	dims := make([]int64, len(v.Shape))
	for i, d := range v.Shape {
		switch {
		case int64(i) == axis:
		case d.Known():
			dims[i] = d.Size
		default:
			return "(0,)"
		}
	}
	return pyInts(dims, true)
}

// dtypeOf is the torch dtype of a value (float32 when unknown, as the
// interpreter's empty scan outputs).
func (gen *generator) dtypeOf(name string) string {
	if v, ok := gen.g.Values.Lookup(name); ok {
		if d, ok := torchDTypes[v.DType]; ok {
			return d
		}
	}
	return "torch.float32"
}

func writeScan(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Scan)
	scopes, err := gen.scopes()
	if err != nil {
		return err
	}
	body := scopes[0].Graph
	ns, m, k := op.States(), int(op.NumScanInputs), op.ScanOutputCount()
	var pre, states, steps []string
	for i := 0; i < ns; i++ {
		e, err := gen.in(i)
		if err != nil {
			return err
		}
		s := gen.outVar(i, body.Inputs[i].Name)
		states = append(states, s)
		pre = append(pre, s+" = "+plainVar(e))
	}
	for j := 0; j < k; j++ {
		s := gen.vars.claim(localName(body.Outputs[ns+j].Name, "scan") + "_steps")
		steps = append(steps, s)
		pre = append(pre, s+" = []")
	}
	length := gen.vars.claim("length")
	step := gen.vars.claim("step")
	var head []string
	bind := append([]string(nil), states...)
	for j := 0; j < m; j++ {
		x, err := gen.in(ns + j)
		if err != nil {
			return err
		}
		axis := strconv.FormatInt(op.InputAxis(j), 10)
		if j == 0 {
			pre = append(pre, fmt.Sprintf("%s = %s.shape[%s]", length, x, axis))
		} else {
			pre = append(pre, fmt.Sprintf("if %s.shape[%s] != %s:", x, axis, length),
				fmt.Sprintf("    raise ValueError(%s %% (%s.shape[%s], %s))", pyString(fmt.Sprintf("Scan %s: scan input %d has %%d slices, the first %%d", gen.node.Name, j)), x, axis, length))
		}
		at := step
		if op.InputReversed(j) {
			at = length + " - 1 - " + step
		}
		slice := gen.vars.claim(localName(body.Inputs[ns+j].Name, "slice"))
		head = append(head, fmt.Sprintf("%s = %s.select(%s, %s)", slice, x, axis, at))
		bind = append(bind, slice)
	}
	code, err := gen.writeSubgraph(scopes[0].Attr, body, bind)
	if err != nil {
		return err
	}
	lines := append(head, code.lines...)
	for j, s := range steps {
		lines = append(lines, s+".append("+code.outs[ns+j]+")")
	}
	if ns > 0 {
		lines = append(lines, tupleAssign(states, code.outs[:ns]))
	}
	gen.forward = append(gen.forward, pre...)
	gen.forward = append(gen.forward, fmt.Sprintf("for %s in range(%s):", step, length))
	gen.forward = append(gen.forward, indent(lines)...)
	for j, s := range steps {
		if ns+j >= len(n.Outputs) || n.Outputs[ns+j] == "" {
			continue
		}
		list := s
		if op.OutputReversed(j) {
			list = s + "[::-1]"
		}
		out := gen.out(ns + j)
		gen.forward = append(gen.forward, out+" = "+stacked(list, strconv.FormatInt(op.OutputAxis(j), 10), gen.emptyScanShape(n.Outputs[ns+j], op.OutputAxis(j)), gen.dtypeOf(n.Outputs[ns+j])))
	}
	return nil
}
