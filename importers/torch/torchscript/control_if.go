package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// flowKind is what a value that changes across a branch or an iteration
// is at run time.
type flowKind int

const (
	flowTensor flowKind = iota
	flowInt             // a 1-D int64 tensor of one element (dynInt)
	flowBool            // a 0-d bool tensor (dynBool)
	flowFloat           // a 1-D float64 tensor of one element (dynFloat)
)

func (k flowKind) String() string {
	return [...]string{"tensor", "int", "bool", "float"}[k]
}

// flowKindOf is v's kind, or an error saying why v cannot change at run
// time.
func flowKindOf(name string, v value) (flowKind, error) {
	switch v.(type) {
	case *tensorVal:
		return flowTensor, nil
	case int64, *dynInt:
		return flowInt, nil
	case bool, *dynBool:
		return flowBool, nil
	case float64, *dynFloat:
		return flowFloat, nil
	case *listVal, *runList, *appendOnlyList:
		return 0, fmt.Errorf("%s is a list assigned anew inside a loop or a branch: that needs sequence values, which the canonical IR does not have yet (appending to a list defined before, once per iteration or as often in both branches, is supported); trace the model or export it to ONNX", name)
	}
	return 0, fmt.Errorf("%s is a %s that changes at run time; only tensors, ints and bools may differ between branches or iterations", name, typeName(v))
}

// flowTensor is v as the tensor its kind travels as.
func flowTensorOf(v value, k flowKind) (*tensorVal, bool) {
	switch k {
	case flowTensor:
		t, ok := v.(*tensorVal)
		return t, ok
	case flowInt:
		return intTensor(v)
	case flowFloat:
		switch x := v.(type) {
		case float64:
			return numberConst(x), true
		case *dynFloat:
			return x.t, true
		}
		return nil, false
	}
	return boolTensor(v)
}

// fromFlow is the value a tensor of kind k stands for.
func fromFlow(t *tensorVal, k flowKind) value {
	switch k {
	case flowInt:
		return &dynInt{t: t, sym: t.name}
	case flowBool:
		return &dynBool{t: t}
	case flowFloat:
		return &dynFloat{t: t}
	}
	return t
}

// flowInfo is the declared type of a carried value of kind k whose first
// value is t.
func (b *builder) flowInfo(name string, t *tensorVal, k flowKind) canon.ValueInfo {
	switch k {
	case flowInt:
		return canon.ValueInfo{Name: name, DType: canon.Int64, Shape: canon.DimsOf(1), RankKnown: true}
	case flowBool:
		return canon.ValueInfo{Name: name, DType: canon.Bool, RankKnown: true}
	case flowFloat:
		return canon.ValueInfo{Name: name, DType: canon.Float64, Shape: canon.DimsOf(1), RankKnown: true}
	}
	vi := b.info(t)
	vi.Name, vi.Const = name, nil
	vi.Shape = append([]canon.Dim(nil), vi.Shape...)
	return vi
}

// raises reports whether a block raises (a scripted assert or raise).
func raises(body []stmt) (string, bool) {
	for _, s := range body {
		es, ok := s.(*exprStmt)
		if !ok {
			continue
		}
		call, ok := es.x.(*callExpr)
		if !ok || exprPath(call.fn) != "ops.prim.RaiseException" {
			continue
		}
		msg := "an exception"
		if len(call.args) > 0 {
			if sl, ok := call.args[0].(*stringLit); ok {
				msg = fmt.Sprintf("%q", sl.v)
			}
		}
		return msg, true
	}
	return "", false
}

// exprPath is the dotted name a.b.c of an expression, or "".
func exprPath(e expr) string {
	switch x := e.(type) {
	case *nameExpr:
		return x.name
	case *attrExpr:
		if p := exprPath(x.x); p != "" {
			return p + "." + x.name
		}
	}
	return ""
}

func (in *evaluator) runIf(f *frame, st *ifStmt) error {
	static, known, cond, err := in.condition(f, st.cond)
	if err != nil {
		return err
	}
	if known {
		if static {
			return in.runBlock(f, st.then)
		}
		return in.runBlock(f, st.els)
	}
	// A branch that only raises is an assertion on the inputs: the model
	// is imported for the inputs that pass it.
	if msg, ok := raises(st.then); ok {
		if _, both := raises(st.els); !both {
			in.note(fmt.Sprintf("%s:%d: the model raises %s when a run-time condition holds; the import assumes its inputs never raise", f.fn.file, st.line, msg))
			return in.runBlock(f, st.els)
		}
	}
	if msg, ok := raises(st.els); ok {
		in.note(fmt.Sprintf("%s:%d: the model raises %s when a run-time condition fails; the import assumes its inputs never raise", f.fn.file, st.line, msg))
		return in.runBlock(f, st.then)
	}
	ordinal := in.nextIf()
	if takeThen, split := in.splitTaken(ordinal); split {
		return in.openTail(f, st, cond, ordinal, takeThen)
	}
	b := in.b
	before := saveScope(f)
	var thenLists, elseLists *listBody
	thenG, err := in.intoSubgraph("then_branch", nil, func() error {
		thenLists = in.wrapLists(f, appendTargets(st.then, st.els))
		return in.runBlock(f, st.then)
	})
	thenVars := before.restore(f)
	if err != nil {
		return err
	}
	elseG, err := in.intoSubgraph("else_branch", nil, func() error {
		elseLists = in.wrapLists(f, appendTargets(st.then, st.els))
		return in.runBlock(f, st.els)
	})
	elseVars := before.restore(f)
	if err != nil {
		return err
	}
	thenLists.unwrap(thenVars)
	elseLists.unwrap(elseVars)
	var thenOuts, elseOuts []*tensorVal
	var kinds []flowKind
	// merge pairs a value of each branch: the same value stays; tuples
	// pair item by item; the rest become outputs of the If. It returns
	// how to rebuild the value from the If's outputs.
	var merge func(name string, tv, ev value) (func([]*tensorVal) value, error)
	merge = func(name string, tv, ev value) (func([]*tensorVal) value, error) {
		if sameValue(tv, ev) {
			return func([]*tensorVal) value { return tv }, nil
		}
		tt, okT := tv.(*tupleVal)
		et, okE := ev.(*tupleVal)
		if okT && okE && len(tt.items) == len(et.items) {
			parts := make([]func([]*tensorVal) value, len(tt.items))
			for i := range tt.items {
				p, err := merge(fmt.Sprintf("%s[%d]", name, i), tt.items[i], et.items[i])
				if err != nil {
					return nil, err
				}
				parts[i] = p
			}
			return func(outs []*tensorVal) value {
				items := make([]value, len(parts))
				for i, p := range parts {
					items[i] = p(outs)
				}
				return &tupleVal{items: items}
			}, nil
		}
		kt, err := flowKindOf(name, tv)
		if err != nil {
			return nil, err
		}
		ke, err := flowKindOf(name, ev)
		if err != nil {
			return nil, err
		}
		if kt != ke {
			return nil, fmt.Errorf("%s is a %s in one branch and a %s in the other", name, kt, ke)
		}
		t1, _ := flowTensorOf(tv, kt)
		t2, _ := flowTensorOf(ev, ke)
		at := len(thenOuts)
		thenOuts, elseOuts, kinds = append(thenOuts, t1), append(elseOuts, t2), append(kinds, kt)
		return func(outs []*tensorVal) value { return fromFlow(outs[at], kt) }, nil
	}
	rebuild := map[string]func([]*tensorVal) value{}
	for _, k := range changedNames(before.vars, thenVars, elseVars) {
		tv, okT := thenVars[k]
		ev, okE := elseVars[k]
		if !okT || !okE {
			continue // assigned on one path only: TorchScript never reads it after
		}
		r, err := merge(k, tv, ev)
		if err != nil {
			return err
		}
		rebuild[k] = r
	}
	appends, err := mergeAppends(thenLists, elseLists, merge)
	if err != nil {
		return err
	}
	if len(thenOuts) == 0 {
		for k, r := range rebuild {
			f.vars[k] = r(nil)
		}
		return appends.apply(in, nil) // the branches compute nothing read after them
	}
	capsThen, err := in.finishSubgraph(thenG, thenOuts)
	if err != nil {
		return fmt.Errorf("then branch: %w", err)
	}
	capsElse, err := in.finishSubgraph(elseG, elseOuts)
	if err != nil {
		return fmt.Errorf("else branch: %w", err)
	}
	caps := mergeCaptures(capsThen, capsElse)
	ins := append([]*tensorVal{cond}, captureVals(b, caps)...)
	outs, err := b.emit(f.scope, &canon.If{Then: thenG, Else: elseG, Captures: caps}, ins, len(thenOuts))
	if err != nil {
		return err
	}
	in.noteRankSplits(fmt.Sprintf("%s:%d", f.fn.file, st.line), ordinal, thenG, elseG, outs)
	for k, r := range rebuild {
		f.vars[k] = r(outs)
	}
	return appends.apply(in, outs)
}

// note records a remark about the import in the graph's notes.
func (in *evaluator) note(s string) {
	in.b.notes = append(in.b.notes, s)
}
