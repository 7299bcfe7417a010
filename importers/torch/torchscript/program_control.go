package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// Control flow for a Program: torch.export's higher-order operators
// (cond, while_loop, map) give their branches and bodies as graphs of
// their own, which the caller replays through the callbacks below while
// the Program builds the matching subgraph. A callback's tensors belong to
// the subgraph being built; outer tensors it reads become the node's
// captures, resolved by name.

// SubgraphFn builds one subgraph from its formal inputs (none for a branch)
// and returns its results.
type SubgraphFn func(formal []*Tensor) ([]*Tensor, error)

// If emits an If on cond, a tensor of one element whose truth (nonzero,
// as bool(tensor) reads it) picks then or els. Both branches must return
// the same number of tensors, of the same dtypes and ranks, with sizes that
// agree where both are known.
func (p *Program) If(scope string, cond *Tensor, then, els SubgraphFn) ([]*Tensor, error) {
	b := p.in.b
	pred, err := b.runTimeBool(scope, cond.v)
	if err != nil {
		return nil, fmt.Errorf("the predicate: %w", err)
	}
	thenG, thenOuts, thenCaps, err := p.subgraph("then_branch", nil, then)
	if err != nil {
		return nil, fmt.Errorf("true branch: %w", err)
	}
	elseG, elseOuts, elseCaps, err := p.subgraph("else_branch", nil, els)
	if err != nil {
		return nil, fmt.Errorf("false branch: %w", err)
	}
	if len(thenOuts) != len(elseOuts) {
		return nil, fmt.Errorf("the true branch returns %d tensors and the false branch %d", len(thenOuts), len(elseOuts))
	}
	if len(thenOuts) == 0 {
		return nil, nil
	}
	for i := range thenOuts {
		if err := sameKind(thenG.Outputs[i], elseG.Outputs[i]); err != nil {
			return nil, fmt.Errorf("result %d: the true branch returns %s and the false branch %s: %w", i, describeInfo(thenG.Outputs[i]), describeInfo(elseG.Outputs[i]), err)
		}
	}
	caps := mergeCaptures(thenCaps, elseCaps)
	ins := append([]*tensorVal{pred.t}, captureVals(b, caps)...)
	outs, err := b.emit(scope, &canon.If{Then: thenG, Else: elseG, Captures: caps}, ins, len(thenOuts))
	if err != nil {
		return nil, err
	}
	return wrapTensors(outs), nil
}

// WhileLoop emits a Loop that, while cond of the carried tensors holds (a
// tensor of one element, true when nonzero), replaces them with what body
// returns; it returns their final values. cond runs once on the initial
// values in the current graph and again on each iteration's results inside
// the body. A body must keep each carried tensor's dtype, rank and known
// sizes. The trip count is unbounded: the interpreter's iteration limit
// stops a loop whose condition never fails.
func (p *Program) WhileLoop(scope string, init []*Tensor, cond func(carried []*Tensor) (*Tensor, error), body SubgraphFn) ([]*Tensor, error) {
	b := p.in.b
	if len(init) == 0 {
		return nil, fmt.Errorf("the loop carries no tensors")
	}
	predicate := func(carried []*Tensor) (*tensorVal, error) {
		c, err := cond(carried)
		if err != nil {
			return nil, fmt.Errorf("condition: %w", err)
		}
		t, err := b.runTimeBool(scope, c.v)
		if err != nil {
			return nil, fmt.Errorf("condition: %w", err)
		}
		return t.t, nil
	}
	first, err := predicate(init)
	if err != nil {
		return nil, err
	}
	formal := []canon.ValueInfo{
		{Name: b.unique("iteration"), DType: canon.Int64, RankKnown: true},
		{Name: b.unique("condition"), DType: canon.Bool, RankKnown: true},
	}
	inits := make([]*tensorVal, len(init))
	for i, t := range init {
		inits[i] = t.v
		vi := b.info(t.v)
		vi.Name, vi.Const = b.unique("carried"), nil
		vi.Shape = append([]canon.Dim(nil), vi.Shape...)
		formal = append(formal, vi)
	}
	g, _, caps, err := p.subgraph("body", formal, func(args []*Tensor) ([]*Tensor, error) {
		outs, err := body(args[2:])
		if err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		if len(outs) != len(init) {
			return nil, fmt.Errorf("the body returns %d tensors for %d carried ones", len(outs), len(init))
		}
		for i, o := range outs {
			if err := sameKind(formal[2+i], b.info(o.v)); err != nil {
				return nil, fmt.Errorf("carried tensor %d enters the body as %s and leaves it as %s: %w", i, describeInfo(formal[2+i]), describeInfo(b.info(o.v)), err)
			}
		}
		c, err := predicate(outs)
		if err != nil {
			return nil, err
		}
		return append([]*Tensor{{v: c}}, outs...), nil
	})
	if err != nil {
		return nil, err
	}
	ins := append([]*tensorVal{nil, first}, inits...)
	ins = append(ins, captureVals(b, caps)...)
	outs, err := b.emit(scope, &canon.Loop{Body: g, Captures: caps}, ins, len(init))
	if err != nil {
		return nil, err
	}
	return wrapTensors(outs), nil
}

// Map emits a Scan that runs body on each slice of xs along their leading
// axis (all of the same length) and stacks each result along a new
// leading axis.
func (p *Program) Map(scope string, xs []*Tensor, body SubgraphFn) ([]*Tensor, error) {
	b := p.in.b
	if len(xs) == 0 {
		return nil, fmt.Errorf("map over no tensors")
	}
	var formal []canon.ValueInfo
	var lead canon.Dim
	for i, x := range xs {
		vi := b.info(x.v)
		if !vi.RankKnown || len(vi.Shape) == 0 {
			return nil, fmt.Errorf("mapped tensor %d is %s; it needs a leading axis to map over", i, describeInfo(vi))
		}
		d := vi.Shape[0]
		if i > 0 && d.Known() && lead.Known() && d.Size != lead.Size {
			return nil, fmt.Errorf("mapped tensors have leading sizes %d and %d; they must agree", lead.Size, d.Size)
		}
		if i == 0 || !lead.Known() {
			lead = d
		}
		if d.Known() && d.Size == 0 {
			return nil, fmt.Errorf("mapped tensor %d has a leading axis of size 0, over which PyTorch refuses to map", i)
		}
		formal = append(formal, canon.ValueInfo{Name: b.unique("slice"), DType: vi.DType, Shape: append([]canon.Dim(nil), vi.Shape[1:]...), RankKnown: true})
	}
	g, outs, caps, err := p.subgraph("body", formal, body)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("the body returns no tensors")
	}
	ins := append(unwrapTensors(xs), captureVals(b, caps)...)
	res, err := b.emit(scope, &canon.Scan{Body: g, NumScanInputs: int64(len(xs)), Captures: caps}, ins, len(outs))
	if err != nil {
		return nil, err
	}
	return wrapTensors(res), nil
}

// subgraph builds a subgraph with the given formal inputs by running fn
// and returns it with its results and captures.
func (p *Program) subgraph(name string, formal []canon.ValueInfo, fn SubgraphFn) (*canon.Graph, []*Tensor, []string, error) {
	args := make([]*Tensor, len(formal))
	for i, vi := range formal {
		args[i] = &Tensor{v: &tensorVal{name: vi.Name, info: vi}}
	}
	var outs []*Tensor
	g, err := p.in.intoSubgraph(name, formal, func() error {
		var err error
		outs, err = fn(args)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	caps, err := p.in.finishSubgraph(g, unwrapTensors(outs))
	if err != nil {
		return nil, nil, nil, err
	}
	return g, outs, caps, nil
}

// sameKind reports why two typed values differ: dtype, rank, or a size
// both know.
func sameKind(a, b canon.ValueInfo) error {
	if a.DType != b.DType {
		return fmt.Errorf("the dtypes differ")
	}
	if a.RankKnown && b.RankKnown {
		if len(a.Shape) != len(b.Shape) {
			return fmt.Errorf("the ranks differ")
		}
		for i := range a.Shape {
			if a.Shape[i].Known() && b.Shape[i].Known() && a.Shape[i].Size != b.Shape[i].Size {
				return fmt.Errorf("dimension %d differs (%d and %d); results of different shapes are not supported", i, a.Shape[i].Size, b.Shape[i].Size)
			}
		}
	}
	return nil
}

func describeInfo(vi canon.ValueInfo) string {
	if !vi.RankKnown {
		return fmt.Sprintf("a %s tensor of unknown rank", vi.DType)
	}
	dims := make([]string, len(vi.Shape))
	for i, d := range vi.Shape {
		switch {
		case d.Known():
			dims[i] = fmt.Sprint(d.Size)
		case d.Param != "":
			dims[i] = d.Param
		default:
			dims[i] = "?"
		}
	}
	return fmt.Sprintf("a %s tensor of shape %v", vi.DType, dims)
}

func wrapTensors(ts []*tensorVal) []*Tensor {
	out := make([]*Tensor, len(ts))
	for i, t := range ts {
		out[i] = &Tensor{v: t}
	}
	return out
}

func unwrapTensors(ts []*Tensor) []*tensorVal {
	out := make([]*tensorVal, len(ts))
	for i, t := range ts {
		out[i] = t.v
	}
	return out
}

// SymCompare compares two ints, either of which may be known only at run
// time (a symbolic size): op is one of < <= > >= == !=. Known ints give a
// bool; otherwise the result is a 0-d bool tensor computed by graph nodes.
func (p *Program) SymCompare(op string, a, b any) (any, error) {
	va, err := toValue(a)
	if err != nil {
		return nil, err
	}
	vb, err := toValue(b)
	if err != nil {
		return nil, err
	}
	ia, okA := toInt(va)
	ib, okB := toInt(vb)
	_, dynA := va.(*dynInt)
	_, dynB := vb.(*dynInt)
	if okA && okB && !dynA && !dynB {
		switch op {
		case "<":
			return ia < ib, nil
		case "<=":
			return ia <= ib, nil
		case ">":
			return ia > ib, nil
		case ">=":
			return ia >= ib, nil
		case "==":
			return ia == ib, nil
		case "!=":
			return ia != ib, nil
		}
		return nil, fmt.Errorf("comparison %s is not known", op)
	}
	ta, okA := intTensor(va)
	tb, okB := intTensor(vb)
	if !okA || !okB {
		return nil, fmt.Errorf("comparison %s of a %s and a %s: only ints compare", op, typeName(va), typeName(vb))
	}
	fns := map[string]struct {
		fn     canon.CompareFn
		negate bool
	}{"<": {canon.CmpLess, false}, "<=": {canon.CmpLessOrEqual, false}, ">": {canon.CmpGreater, false},
		">=": {canon.CmpGreaterOrEqual, false}, "==": {canon.CmpEqual, false}, "!=": {canon.CmpEqual, true}}
	f, ok := fns[op]
	if !ok {
		return nil, fmt.Errorf("comparison %s is not known", op)
	}
	bld := p.in.b
	t, err := bld.emit1("", &canon.Compare{Fn: f.fn}, ta, tb)
	if err != nil {
		return nil, err
	}
	if f.negate {
		if t, err = bld.emit1("", &canon.Not{}, t); err != nil {
			return nil, err
		}
	}
	s, err := bld.emit1("", &canon.Reshape{}, t, scalarShape())
	if err != nil {
		return nil, err
	}
	return &Tensor{v: s}, nil
}
