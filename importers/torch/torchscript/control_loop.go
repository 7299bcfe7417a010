package torchscript

import (
	"errors"
	"fmt"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
)

// loopSpec is a scripted loop: "for target in range(count)" (count set,
// cond nil) or "while cond" (count nil).
type loopSpec struct {
	target string
	count  value
	cond   expr
	body   []stmt
	// scanLists lets one append per iteration to a list become a scan
	// output (not for a loop the importer would rather unroll).
	scanLists bool
}

func (in *evaluator) runFor(f *frame, st *forStmt) error {
	call, ok := st.iter.(*callExpr)
	if !ok || exprPath(call.fn) != "range" || len(call.args) != 1 || len(call.kwargs) != 0 {
		return fmt.Errorf("for loops over anything but range(n) are not supported (TorchScript writes loops over lists and tuples as range(len(...)))")
	}
	n, err := in.eval(f, call.args[0])
	if err != nil {
		return err
	}
	switch x := n.(type) {
	case int64:
		if x <= 0 {
			return nil
		}
	case *dynInt:
	case *tensorVal:
		if s, ok := scalarOf(x); ok && s.isInt {
			n = int64(s.f)
			if s.f <= 0 {
				return nil
			}
			break
		}
		return fmt.Errorf("range() of a tensor: convert it with int() first")
	default:
		return fmt.Errorf("range() of a %s", typeName(n))
	}
	count, static := n.(int64)
	spec := loopSpec{target: st.target, count: n, body: st.body, scanLists: !static || count > maxUnroll}
	before := saveScope(f)
	err = in.runLoop(f, spec, nil)
	if err == nil {
		return nil
	}
	if !static || count > maxUnroll {
		return err
	}
	// A body that cannot run as a Loop body (it indexes a list with the
	// loop variable, say) runs count times in place instead.
	before.restore(f)
	for i := int64(0); i < count; i++ {
		f.vars[st.target] = i
		if uerr := in.runBlock(f, st.body); uerr != nil {
			return errors.Join(err, fmt.Errorf("run %d times in place instead: %w", count, uerr))
		}
	}
	return nil
}

func (in *evaluator) runWhile(f *frame, st *whileStmt) error {
	static, known, cond, err := in.condition(f, st.cond)
	if err != nil {
		return err
	}
	if known {
		if !static {
			return nil
		}
		cond, _ = boolTensor(true)
	}
	return in.runLoop(f, loopSpec{cond: st.cond, body: st.body, scanLists: true}, cond)
}

// runLoop emits a Loop running spec's body; condInit is a while loop's
// first condition.
func (in *evaluator) runLoop(f *frame, spec loopSpec, condInit *tensorVal) error {
	var carried []string
	for _, k := range assignedNames(spec.body) {
		v, ok := f.vars[k]
		if _, none := v.(noneVal); none {
			continue // an Optional left None: the body must leave it so (checked after it)
		}
		if ok && k != spec.target {
			carried = append(carried, k)
		}
	}
	return in.runLoopCarrying(f, spec, condInit, carried)
}

// inPlaceLoopError names the tensors from before a loop that its body
// changes in place: they become carried values.
type inPlaceLoopError struct{ names []string }

func (e *inPlaceLoopError) Error() string {
	return fmt.Sprintf("%v are changed in place inside a loop", e.names)
}

// runLoopCarrying is runLoop with the carried names chosen; a tensor the
// body changes in place is added to them, and every variable that held it
// sees the Loop's result.
func (in *evaluator) runLoopCarrying(f *frame, spec loopSpec, condInit *tensorVal, carried []string) error {
	b := in.b
	kinds := make([]flowKind, len(carried))
	inits := make([]*tensorVal, len(carried))
	declared := make([]canon.ValueInfo, len(carried))
	for i, k := range carried {
		kind, err := flowKindOf(k, f.vars[k])
		if err != nil {
			return fmt.Errorf("loop-carried value %w", err)
		}
		kinds[i] = kind
		inits[i], _ = flowTensorOf(f.vars[k], kind)
		declared[i] = b.flowInfo("", inits[i], kind)
	}
	// The body is built with the first value's type; when an iteration
	// changes a shape, it is built again with that shape left open.
	for attempt := 0; ; attempt++ {
		g, caps, scans, changed, err := in.loopBody(f, spec, carried, kinds, declared)
		var ip *inPlaceLoopError
		if errors.As(err, &ip) && !contains(carried, ip.names[0]) {
			more := append(append([]string(nil), carried...), ip.names...)
			sort.Strings(more)
			origs := map[string]*tensorVal{}
			for _, k := range ip.names {
				origs[k] = f.vars[k].(*tensorVal)
			}
			if err := in.runLoopCarrying(f, spec, condInit, more); err != nil {
				return err
			}
			for k, t := range origs {
				// Aliases of the tensor changed in place see its new value.
				if nt, ok := f.vars[k].(*tensorVal); ok && nt != t {
					staleViews(in.b, t, "")
					*t = *nt
					f.vars[k] = t
				}
			}
			return nil
		}
		if err != nil {
			return err
		}
		if !changed {
			return in.emitLoop(f, spec, g, caps, carried, kinds, inits, condInit, scans)
		}
		if attempt == 2 {
			return fmt.Errorf("the types of the loop-carried values do not settle")
		}
		for i := range declared {
			declared[i] = loosen(declared[i], g.Outputs[1+i])
		}
	}
}

// scanList is a list a loop appends one tensor per iteration to: the
// Loop's scan output after the carried values.
type scanList struct {
	outer value
	name  string
}

// loopBody builds the body once with carried values of the declared
// types; changed reports that an iteration gives one of them another type.
func (in *evaluator) loopBody(f *frame, spec loopSpec, carried []string, kinds []flowKind, declared []canon.ValueInfo) (*canon.Graph, []string, []scanList, bool, error) {
	b := in.b
	formal := []canon.ValueInfo{
		{Name: b.unique("iteration"), DType: canon.Int64, RankKnown: true},
		{Name: b.unique("condition"), DType: canon.Bool, RankKnown: true},
	}
	for i, k := range carried {
		vi := declared[i]
		vi.Name = b.unique(k)
		formal = append(formal, vi)
	}
	before := saveScope(f)
	var outs []*tensorVal
	var lists *listBody
	var scans []scanList
	g, err := in.intoSubgraph("body", formal, func() error {
		lists = in.wrapLists(f, appendTargets(spec.body))
		if spec.target != "" {
			it, err := b.emit1(f.scope, &canon.Reshape{}, &tensorVal{name: formal[0].Name, info: formal[0]}, oneShape())
			if err != nil {
				return err
			}
			f.vars[spec.target] = &dynInt{t: it, sym: spec.target}
		}
		for i, k := range carried {
			f.vars[k] = fromFlow(&tensorVal{name: formal[2+i].Name, info: formal[2+i]}, kinds[i])
		}
		if err := in.runBlock(f, spec.body); err != nil {
			return err
		}
		next := &tensorVal{name: formal[1].Name, info: formal[1]}
		if spec.cond != nil {
			static, known, t, err := in.condition(f, spec.cond)
			if err != nil {
				return err
			}
			if next = t; known {
				next, _ = boolTensor(static)
			}
		}
		outs = append(outs, next)
		for i, k := range carried {
			kind, err := flowKindOf(k, f.vars[k])
			if err != nil {
				return fmt.Errorf("loop-carried value %w", err)
			}
			if kind != kinds[i] {
				return fmt.Errorf("loop-carried %s starts as a %s and the body makes it a %s", k, kinds[i], kind)
			}
			t, _ := flowTensorOf(f.vars[k], kind)
			outs = append(outs, t)
		}
		ws, items, err := lists.loopScans(spec.scanLists)
		if err != nil {
			return err
		}
		// An item whose shape changes from one iteration to the next
		// stops the Loop at run time (scan outputs keep one shape), as
		// torch.stack of such items stops PyTorch.
		for _, w := range ws {
			scans = append(scans, scanList{outer: w.outer, name: lists.name(w)})
		}
		outs = append(outs, items...)
		return nil
	})
	after := before.restore(f)
	if err != nil {
		return nil, nil, nil, false, err
	}
	lists.unwrap(after)
	locals := map[string]bool{spec.target: true}
	for _, k := range carried {
		locals[k] = true
	}
	var inPlace []string
	for _, k := range changedNames(before.vars, after) {
		if _, existed := before.vars[k]; existed && !locals[k] {
			if _, isTensor := before.vars[k].(*tensorVal); !isTensor {
				return nil, nil, nil, false, fmt.Errorf("%s is changed inside a loop from a %s to a %s, which the importer does not carry across iterations", k, typeName(before.vars[k]), typeName(after[k]))
			}
			inPlace = append(inPlace, k)
		}
	}
	if len(inPlace) > 0 {
		// Tensors the body changes in place are carried too: build it again.
		return nil, nil, nil, false, &inPlaceLoopError{names: inPlace}
	}
	caps, err := in.finishSubgraph(g, outs)
	if err != nil {
		return nil, nil, nil, false, err
	}
	changed := false
	for i := range declared {
		o := g.Outputs[1+i]
		if o.DType != declared[i].DType && o.DType != canon.Undefined {
			return nil, nil, nil, false, fmt.Errorf("loop-carried %s starts as %s and the body makes it %s", carried[i], declared[i].DType, o.DType)
		}
		if !sameType(loosen(declared[i], o), declared[i]) {
			changed = true
		}
	}
	return g, caps, scans, changed, nil
}

// loosen is declared with what holds also of next: dims that differ are
// left open, a rank that differs makes the rank unknown.
func loosen(declared, next canon.ValueInfo) canon.ValueInfo {
	out := canon.ValueInfo{Name: declared.Name, DType: declared.DType}
	if !declared.RankKnown || !next.RankKnown || len(declared.Shape) != len(next.Shape) {
		return out
	}
	out.RankKnown = true
	out.Shape = make([]canon.Dim, len(declared.Shape))
	for i, d := range declared.Shape {
		n := next.Shape[i]
		if d.Known() && n.Known() && d.Size == n.Size || !d.Known() && !n.Known() && d.Param != "" && d.Param == n.Param {
			out.Shape[i] = d
		} else {
			out.Shape[i] = canon.Dim{Size: -1}
		}
	}
	return out
}

// emitLoop adds the Loop node and rebinds the carried names to its outputs.
func (in *evaluator) emitLoop(f *frame, spec loopSpec, body *canon.Graph, caps, carried []string, kinds []flowKind, inits []*tensorVal, condInit *tensorVal, scans []scanList) error {
	b := in.b
	if len(carried) == 0 && len(scans) == 0 {
		return nil // the loop computes nothing that is read after it
	}
	var trip *tensorVal
	switch n := spec.count.(type) {
	case int64:
		trip = &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{n})}
	case *dynInt:
		t, err := b.emit1(f.scope, &canon.Reshape{}, n.t, scalarShape())
		if err != nil {
			return err
		}
		trip = t
	}
	ins := append([]*tensorVal{trip, condInit}, inits...)
	ins = append(ins, captureVals(b, caps)...)
	outs, err := b.emit(f.scope, &canon.Loop{Body: body, Captures: caps}, ins, len(carried)+len(scans))
	if err != nil {
		return err
	}
	for i, k := range carried {
		f.vars[k] = fromFlow(outs[i], kinds[i])
	}
	for j, s := range scans {
		if err := in.scanned(f, s.outer, outs[len(carried)+j], s.name); err != nil {
			return err
		}
	}
	return nil
}

// assignedNames are the names a block assigns, nested blocks included,
// sorted.
func assignedNames(body []stmt) []string {
	set := map[string]bool{}
	var walk func([]stmt)
	walk = func(ss []stmt) {
		for _, s := range ss {
			switch st := s.(type) {
			case *assignStmt:
				for _, t := range st.targets {
					if n, ok := t.(*nameExpr); ok {
						set[n.name] = true
					}
				}
			case *ifStmt:
				walk(st.then)
				walk(st.els)
			case *forStmt:
				set[st.target] = true
				walk(st.body)
			case *whileStmt:
				walk(st.body)
			}
		}
	}
	walk(body)
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// sameType reports whether a and b have the same dtype, rank and dims.
func sameType(a, b canon.ValueInfo) bool {
	if a.DType != b.DType || a.RankKnown != b.RankKnown || len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	return true
}

func contains(names []string, k string) bool {
	for _, n := range names {
		if n == k {
			return true
		}
	}
	return false
}
