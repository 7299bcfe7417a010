package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// Sequences and optionals at run time. Tensors stay in exec.vals (the fast
// path every kernel reads); a slot that holds a sequence or an optional
// keeps it in exec.boxed instead, which exists only in Programs that have
// such values. A boxed value is never changed after it is made and never
// returns to the pool: the tensors it holds are private copies, so the
// kernels that put tensors in or take them out copy them.

// seqValue is a sequence: tensors of one dtype.
type seqValue struct {
	dt    canon.DType
	items []*tensor
}

// optValue is an optional: a *tensor or a *seqValue, or nil when empty.
type optValue struct {
	kind canon.ValueKind
	dt   canon.DType
	val  any
}

// liveValue passes a sequence or an optional between a control-flow node
// and the Program of its subgraph as it is, without a copy: boxed values
// are never changed, so both sides may hold it.
type liveValue struct{ v any }

func (l *liveValue) ValueKind() canon.ValueKind { return kindOf(l.v) }

// detach is a copy of t that owns its data (not from the pool).
func detach(t *tensor) *tensor {
	c := &tensor{dt: t.dt, shape: append([]int{}, t.shape...)}
	if t.f != nil {
		c.f = append([]float32{}, t.f...)
	}
	if t.d != nil {
		c.d = append([]float64{}, t.d...)
	}
	if t.i != nil {
		c.i = append([]int64{}, t.i...)
	}
	return c
}

// kindOf is the kind of a run-time value (*tensor, *seqValue, *optValue).
func kindOf(v any) canon.ValueKind {
	switch x := v.(type) {
	case *seqValue:
		return canon.SequenceValue
	case *optValue:
		return x.kind
	}
	return canon.TensorValue
}

// value returns input k as a run-time value (nil when absent).
func (x *exec) value(k int) any {
	if k >= len(x.s.in) || x.s.in[k] < 0 {
		return nil
	}
	if x.boxed != nil {
		if b := x.boxed[x.s.in[k]]; b != nil {
			return b
		}
	}
	if t := x.in(k); t != nil {
		return t
	}
	return nil
}

// setValue stores output k, a tensor or a boxed value.
func (x *exec) setValue(k int, v any) {
	if t, ok := v.(*tensor); ok {
		x.set(k, t)
		return
	}
	if k >= len(x.s.out) || x.s.out[k] < 0 {
		return
	}
	x.boxed[x.s.out[k]] = v
}

// seqIn is input k, which must be a sequence.
func (x *exec) seqIn(k int) (*seqValue, error) {
	s, ok := x.value(k).(*seqValue)
	if !ok {
		return nil, fmt.Errorf("input %q is a %s, want a sequence", x.s.node.Inputs[k], kindOf(x.value(k)))
	}
	return s, nil
}

// fromCanonValue converts a canon run-time value.
func fromCanonValue(v canon.Value) (any, error) {
	switch x := v.(type) {
	case *liveValue:
		return x.v, nil
	case *canon.Tensor:
		return fromCanon(x, false)
	case *canon.Sequence:
		s := &seqValue{dt: x.DType, items: make([]*tensor, len(x.Tensors))}
		for i, t := range x.Tensors {
			it, err := fromCanon(t, false)
			if err != nil {
				return nil, fmt.Errorf("tensor %d of the sequence: %v", i, err)
			}
			s.items[i] = it
		}
		return s, nil
	case *canon.OptionalValue:
		o := &optValue{kind: x.Kind, dt: x.DType}
		if x.Value != nil {
			inner, err := fromCanonValue(x.Value)
			if err != nil {
				return nil, err
			}
			o.val = inner
		}
		return o, nil
	}
	return nil, fmt.Errorf("unknown value type %T", v)
}

// toCanonValue converts a run-time value; dt is the declared dtype of its
// tensors (Undefined: as computed).
func toCanonValue(v any, name string, dt canon.DType) (canon.Value, error) {
	switch x := v.(type) {
	case *tensor:
		return toCanon(x, name, dt)
	case *seqValue:
		if dt == canon.Undefined {
			dt = x.dt
		}
		s := &canon.Sequence{Name: name, DType: dt, Tensors: make([]*canon.Tensor, len(x.items))}
		for i, t := range x.items {
			ct, err := toCanon(t, "", dt)
			if err != nil {
				return nil, err
			}
			s.Tensors[i] = ct
		}
		return s, nil
	case *optValue:
		if dt == canon.Undefined {
			dt = x.dt
		}
		o := &canon.OptionalValue{Name: name, Kind: x.kind, DType: dt}
		if x.val != nil {
			inner, err := toCanonValue(x.val, "", dt)
			if err != nil {
				return nil, err
			}
			o.Value = inner
		}
		return o, nil
	}
	return nil, fmt.Errorf("value %q of unknown type %T", name, v)
}

// valueBytes is the memory a run-time value holds, for the budget.
func valueBytes(v any) int64 {
	switch x := v.(type) {
	case *tensor:
		return int64(x.size()) * int64(max(x.dt.Size(), 1))
	case *seqValue:
		n := int64(0)
		for _, t := range x.items {
			n += valueBytes(t)
		}
		return n
	case *optValue:
		if x.val != nil {
			return valueBytes(x.val)
		}
	}
	return 0
}

// RunValues is Run for graphs whose inputs or outputs may be sequences or
// optionals: inputs and outputs are canon.Values (*canon.Tensor,
// *canon.Sequence or *canon.OptionalValue) of the graph's declared kinds.
func (p *Program) RunValues(inputs map[string]canon.Value) (map[string]canon.Value, error) {
	vals, boxed, err := p.execute(nil, inputs)
	defer p.recycle(vals)
	if err != nil {
		return nil, err
	}
	out := make(map[string]canon.Value, len(p.outs))
	for _, o := range p.outs {
		if boxed != nil && boxed[o.slot] != nil {
			v := boxed[o.slot]
			if p.live {
				out[o.name] = &liveValue{v}
				continue
			}
			n := valueBytes(v)
			if err := p.pool.budget.tryCharge(fmt.Sprintf("output %q", o.name), n); err != nil {
				return nil, err
			}
			p.pool.outBytes += n
			cv, err := toCanonValue(v, o.name, o.dt)
			if err != nil {
				return nil, err
			}
			out[o.name] = cv
			continue
		}
		ct, err := p.outputTensor(o, vals[o.slot])
		if err != nil {
			return nil, err
		}
		out[o.name] = ct
	}
	return out, nil
}

// RunValues executes g once; see Program.RunValues.
func RunValues(g *canon.Graph, inputs map[string]canon.Value) (map[string]canon.Value, error) {
	p, err := New(g)
	if err != nil {
		return nil, err
	}
	return p.RunValues(inputs)
}

// inputValue converts a sequence or optional graph input.
func (p *Program) inputValue(in inputSlot, v canon.Value) (any, error) {
	if v == nil {
		return nil, fmt.Errorf("input %q: missing (want a %s of %s%s, given through RunValues)", in.info.Name, in.info.Kind, in.info.DType, fmtDims(in.info))
	}
	if t, ok := v.(*canon.Tensor); ok && in.info.Kind == canon.OptionalTensor {
		// A tensor given for an optional tensor: the optional holds it.
		v = &canon.OptionalValue{Kind: canon.OptionalTensor, DType: t.DType, Value: t}
	}
	if s, ok := v.(*canon.Sequence); ok && in.info.Kind == canon.OptionalSequence {
		v = &canon.OptionalValue{Kind: canon.OptionalSequence, DType: s.DType, Value: s}
	}
	if l, ok := v.(*liveValue); ok {
		if l.ValueKind() != in.info.Kind {
			return nil, fmt.Errorf("input %q: a %s is given where a %s is expected", in.info.Name, l.ValueKind(), in.info.Kind)
		}
		return l.v, nil // held by the caller's program, which counted it
	}
	if err := canon.CheckValue(in.info, v); err != nil {
		return nil, fmt.Errorf("input %q: %v", in.info.Name, err)
	}
	what := fmt.Sprintf("input %q", in.info.Name)
	out, err := fromCanonValue(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	n := valueBytes(out)
	if err := p.pool.budget.tryCharge(what, n); err != nil {
		return nil, err
	}
	p.pool.outBytes += n
	return out, nil
}

// hasBoxedValues reports whether g has sequence or optional values: its
// programs then keep a slot table for them.
func hasBoxedValues(g *canon.Graph) bool {
	for _, v := range g.Inputs {
		if !v.IsTensor() {
			return true
		}
	}
	for _, v := range g.Outputs {
		if !v.IsTensor() {
			return true
		}
	}
	for _, n := range g.Nodes {
		if n != nil && (canon.HasSubgraphs(n.Op) || sequenceKinds[n.Op.Kind()]) {
			return true
		}
	}
	return !g.Values.AllTensors()
}

// boxedAware wraps the kernel of an op that passes any value through
// (Identity) so that a sequence or an optional passes too.
func (p *Program) boxedAware(n *canon.Node, run kernel) kernel {
	if _, ok := n.Op.(*canon.Identity); !ok || !p.boxes {
		return run
	}
	return func(x *exec) error {
		if v := x.value(0); v != nil {
			if _, isTensor := v.(*tensor); !isTensor {
				x.setValue(0, v)
				return nil
			}
		}
		return run(x)
	}
}

// checkCarried stops a loop whose carried sequences grow past the memory
// budget (a body that appends to a list on every iteration of a huge or
// endless loop) before they exhaust the machine.
func checkCarried(x *exec, carried []any) error {
	n := int64(0)
	for _, v := range carried {
		if _, isTensor := v.(*tensor); !isTensor {
			n += valueBytes(v)
		}
	}
	if n == 0 {
		return nil
	}
	return x.p.pool.budget.check("the loop's carried sequences", n)
}
