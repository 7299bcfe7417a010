package torchscript

import (
	"fmt"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
)

// Scripted control flow. An if whose condition is known at import runs the
// taken branch in place; otherwise each branch is run into a subgraph and
// the names either branch assigns become the outputs of a canonical If. A
// for or while loop becomes a canonical Loop whose carried values are the
// names its body assigns that were defined before it.

// maxUnroll bounds the iterations of a loop with a trip count known at
// import that is run in place when its body cannot be a Loop body (it
// indexes a list with the loop variable, say).
const maxUnroll = 1024

// runBlock runs the statements of a branch or loop body.
func (in *evaluator) runBlock(f *frame, body []stmt) error {
	for _, s := range body {
		in.steps++
		if limit := in.stepLimit(); in.steps > limit {
			return &sourceError{file: f.fn.file, line: s.stmtLine(), err: fmt.Errorf("more than %d statements executed for %d bytes of code/ source; giving up", limit, in.src.codeBytes)}
		}
		switch st := s.(type) {
		case *controlStmt:
			return &ControlFlowError{File: f.fn.file, Line: st.line, Text: st.text}
		case *passStmt:
		case *exprStmt:
			if _, err := in.eval(f, st.x); err != nil {
				return f.errAt(st.line, err)
			}
		case *assignStmt:
			v, err := in.eval(f, st.value)
			if err != nil {
				return f.errAt(st.line, err)
			}
			if err := in.assign(f, st, v); err != nil {
				return f.errAt(st.line, err)
			}
		case *ifStmt, *forStmt, *whileStmt:
			if err := in.runControl(f, st); err != nil {
				return f.errAt(st.stmtLine(), err)
			}
		case *returnStmt:
			return f.errAt(st.line, fmt.Errorf("return inside a branch or loop is not supported (TorchScript writes one return at the end of a function)"))
		default:
			return f.errAt(s.stmtLine(), fmt.Errorf("unsupported statement"))
		}
	}
	return nil
}

// runControl runs an if, for or while statement.
func (in *evaluator) runControl(f *frame, s stmt) error {
	switch st := s.(type) {
	case *ifStmt:
		return in.runIf(f, st)
	case *forStmt:
		return in.runFor(f, st)
	case *whileStmt:
		return in.runWhile(f, st)
	}
	return fmt.Errorf("internal error: %T is not a control statement", s)
}

// condition evaluates an if or while condition: a bool known at import
// (known true), or a run-time bool.
func (in *evaluator) condition(f *frame, e expr) (static, known bool, t *tensorVal, err error) {
	v, err := in.eval(f, e)
	if err != nil {
		return false, false, nil, err
	}
	if c, ok := in.b.constBool(v); ok {
		return c, true, nil, nil
	}
	switch x := v.(type) {
	case int64:
		return x != 0, true, nil, nil
	case *dynBool:
		return false, false, x.t, nil
	case *tensorVal:
		if s, ok := scalarOf(x); ok {
			return s.f != 0, true, nil, nil
		}
		d, err := in.b.runTimeBool(f.scope, x)
		if err != nil {
			return false, false, nil, err
		}
		return false, false, d.t, nil
	}
	return false, false, nil, fmt.Errorf("a condition is a %s, not a bool", typeName(v))
}

// scopeState is what running code into a subgraph may change of the
// enclosing frame: its variables, and the tensors they hold (an in-place
// op overwrites a tensorVal, so every alias sees it).
type scopeState struct {
	vars    map[string]value
	tensors map[*tensorVal]tensorVal
}

func saveScope(f *frame) scopeState {
	s := scopeState{vars: make(map[string]value, len(f.vars)), tensors: map[*tensorVal]tensorVal{}}
	for k, v := range f.vars {
		s.vars[k] = v
		if t, ok := v.(*tensorVal); ok {
			s.tensors[t] = *t
		}
	}
	return s
}

// restore puts the frame back as it was and returns the variables as the
// run left them; a tensor overwritten in place appears as a new value.
func (s scopeState) restore(f *frame) map[string]value {
	after := f.vars
	changed := map[*tensorVal]*tensorVal{}
	for t, was := range s.tensors {
		if t.name != was.name || t.ref != was.ref || t.konst != was.konst {
			now := *t
			changed[t] = &now
			*t = was
		}
	}
	out := make(map[string]value, len(after))
	for k, v := range after {
		if t, ok := v.(*tensorVal); ok && changed[t] != nil {
			v = changed[t]
		}
		out[k] = v
	}
	f.vars = make(map[string]value, len(s.vars))
	for k, v := range s.vars {
		f.vars[k] = v
	}
	return out
}

// subgraphRun is code run into a subgraph of its own.
type subgraphRun struct {
	g    *canon.Graph
	vars map[string]value
}

// intoSubgraph runs fn with the builder adding nodes to a new graph whose
// inputs are formal; initializers still go to the outermost graph.
func (in *evaluator) intoSubgraph(name string, formal []canon.ValueInfo, fn func() error) (*canon.Graph, error) {
	b := in.b
	outer := b.g
	if b.root == nil {
		b.root = outer
	}
	sub := &canon.Graph{Name: name, Inputs: formal}
	for _, v := range formal {
		b.vals[v.Name] = v
	}
	b.g = sub
	b.subDepth++
	err := fn()
	b.subDepth--
	b.g = outer
	return sub, err
}

// finishSubgraph gives sub its outputs (each through an Identity, so that
// an output is always a value the subgraph computes) and returns the outer
// values it reads: its captures.
func (in *evaluator) finishSubgraph(sub *canon.Graph, outs []*tensorVal) ([]string, error) {
	b := in.b
	outer := b.g
	b.g = sub
	defer func() { b.g = outer }()
	for _, t := range outs {
		id, err := b.emit1("", &canon.Identity{}, t)
		if err != nil {
			return nil, err
		}
		sub.Outputs = append(sub.Outputs, b.vals[id.name])
	}
	return freeNames(sub), nil
}

// freeNames are the values sub's nodes read that it neither takes as an
// input nor computes, in order of first use.
func freeNames(sub *canon.Graph) []string {
	defined := map[string]bool{}
	for _, v := range sub.Inputs {
		defined[v.Name] = true
	}
	for _, t := range sub.Initializers {
		defined[t.Name] = true
	}
	var free []string
	seen := map[string]bool{}
	for _, n := range sub.Nodes {
		for _, in := range n.Inputs {
			if in != "" && !defined[in] && !seen[in] {
				seen[in] = true
				free = append(free, in)
			}
		}
		for _, o := range n.Outputs {
			defined[o] = true
		}
	}
	return free
}

// mergeCaptures is the union of capture lists, in order.
func mergeCaptures(lists ...[]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, name := range l {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out
}

func captureVals(b *builder, caps []string) []*tensorVal {
	out := make([]*tensorVal, len(caps))
	for i, name := range caps {
		out[i] = &tensorVal{name: name, info: b.vals[name]}
	}
	return out
}

// changedNames are the variables a run assigned differently from before,
// sorted.
func changedNames(before map[string]value, runs ...map[string]value) []string {
	set := map[string]bool{}
	for _, after := range runs {
		for k, v := range after {
			if old, ok := before[k]; !ok || !sameValue(old, v) {
				set[k] = true
			}
		}
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// sameValue reports whether a and b are the same value: the same object,
// or equal numbers, bools, strings or None.
func sameValue(a, b value) bool {
	switch x := a.(type) {
	case int64, float64, bool, string, noneVal:
		return a == b
	case *tensorVal:
		y, ok := b.(*tensorVal)
		return ok && x == y
	case *dynInt:
		y, ok := b.(*dynInt)
		return ok && x == y
	case *dynBool:
		y, ok := b.(*dynBool)
		return ok && x == y
	case *dynFloat:
		y, ok := b.(*dynFloat)
		return ok && x == y
	case *listVal:
		y, ok := b.(*listVal)
		return ok && x == y
	case *tupleVal:
		y, ok := b.(*tupleVal)
		if !ok || len(x.items) != len(y.items) {
			return ok && x == y
		}
		for i := range x.items {
			if !sameValue(x.items[i], y.items[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
