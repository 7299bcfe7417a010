package interp

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// MaxLoopIterations bounds the iterations of one Loop node in one run, so
// that a loop whose trip count is huge or whose condition never turns
// false stops with an error naming the node instead of running forever.
// Zero means the default, DefaultMaxLoopIterations.
var MaxLoopIterations int64

// DefaultMaxLoopIterations is the iteration bound when MaxLoopIterations is
// not set: far beyond any real model's loop (a decoder's tokens, an RNN's
// steps), reached in seconds by a small hostile body.
const DefaultMaxLoopIterations = 1 << 20

func maxLoopIterations() int64 {
	if MaxLoopIterations > 0 {
		return MaxLoopIterations
	}
	return DefaultMaxLoopIterations
}

func init() {
	// Subgraphs get their values as they are: float64 stays float64.
	optable.Add(&kernels, map[string]kernelEntry{
		"If":   computesF64(func(op canon.Op) kernel { return newSubRunner(op).runIf }),
		"Loop": computesF64(func(op canon.Op) kernel { return newSubRunner(op).runLoop }),
		"Scan": computesF64(func(op canon.Op) kernel { return newSubRunner(op).runScan }),
	})
}

// subRunner runs the subgraphs of one control-flow node. Each subgraph is
// planned once per kind of input it meets (dtypes and ranks: shapes may
// change from one iteration to the next), and the plan is kept.
type subRunner struct {
	owner canon.SubgraphOwner
	plans map[string]*Program
}

func newSubRunner(op canon.Op) *subRunner {
	return &subRunner{owner: op.(canon.SubgraphOwner), plans: map[string]*Program{}}
}

// run runs subgraph sub (attribute attr) on the formal inputs given and
// the node's captured values, and returns its outputs in order. Values are
// tensors (*tensor) or sequences and optionals (see values.go).
func (r *subRunner) run(x *exec, attr string, sub *canon.Graph, formal []any) ([]any, error) {
	caps := r.owner.CaptureNames()
	all := append([]any{}, formal...)
	first := len(x.s.in) - len(caps)
	for i := range caps {
		all = append(all, x.value(first+i))
	}
	p, err := r.plan(x, attr, sub, all)
	if err != nil {
		return nil, err
	}
	// Sequences and optionals are never changed, and the plan borrows
	// its tensor inputs (see borrow.go): every value is passed as it is.
	inputs := make(map[string]canon.Value, len(all))
	for i, v := range all {
		inputs[p.g.Inputs[i].Name] = &liveValue{v}
	}
	outs, err := p.RunValues(inputs)
	if err != nil {
		return nil, fmt.Errorf("in %s: %w", attr, err)
	}
	res := make([]any, len(sub.Outputs))
	for i, o := range sub.Outputs {
		cv := outs[o.Name]
		if cv == nil {
			return nil, fmt.Errorf("%s did not compute its output %q", attr, o.Name)
		}
		if res[i], err = fromCanonValue(cv); err != nil {
			return nil, fmt.Errorf("%s output %q: %v", attr, o.Name, err)
		}
	}
	return res, nil
}

// runTensors is run for subgraphs that take and make tensors only.
func (r *subRunner) runTensors(x *exec, attr string, sub *canon.Graph, formal []*tensor) ([]*tensor, error) {
	in := make([]any, len(formal))
	for i, t := range formal {
		in[i] = t
	}
	outs, err := r.run(x, attr, sub, in)
	if err != nil {
		return nil, err
	}
	res := make([]*tensor, len(outs))
	for i, v := range outs {
		t, ok := v.(*tensor)
		if !ok {
			return nil, fmt.Errorf("%s output %q is a %s, want a tensor", attr, sub.Outputs[i].Name, kindOf(v))
		}
		res[i] = t
	}
	return res, nil
}

// plan returns the program of sub for inputs of these kinds, dtypes and
// ranks.
func (r *subRunner) plan(x *exec, attr string, sub *canon.Graph, in []any) (*Program, error) {
	var key strings.Builder
	key.WriteString(attr)
	types := make([]canon.ValueInfo, len(in))
	for i, v := range in {
		switch b := v.(type) {
		case *tensor:
			fmt.Fprintf(&key, "|%d/%d", b.dt, len(b.shape))
			types[i] = canon.ValueInfo{DType: b.dt, RankKnown: true, Shape: make([]canon.Dim, len(b.shape))}
			for k := range b.shape {
				types[i].Shape[k] = canon.Dim{Size: -1}
			}
		case *seqValue:
			fmt.Fprintf(&key, "|s%d", b.dt)
			types[i] = canon.ValueInfo{DType: b.dt, Kind: canon.SequenceValue}
		case *optValue:
			fmt.Fprintf(&key, "|o%d/%d", b.kind, b.dt)
			types[i] = canon.ValueInfo{DType: b.dt, Kind: b.kind}
		default:
			return nil, fmt.Errorf("%s input %d has no value", attr, i)
		}
	}
	if p := r.plans[key.String()]; p != nil {
		return p, nil
	}
	nf := len(sub.Inputs)
	if len(in) != nf+len(r.owner.CaptureNames()) {
		return nil, fmt.Errorf("%s takes %d inputs, %d given", attr, nf, len(in)-len(r.owner.CaptureNames()))
	}
	scope := canon.ScopeGraph(sub, types[:nf], r.owner.CaptureNames(), types[nf:])
	if err := scope.Validate(); err != nil {
		return nil, fmt.Errorf("subgraph %s: %v", attr, err)
	}
	p, err := New(scope)
	if err != nil {
		return nil, fmt.Errorf("subgraph %s: %v", attr, err)
	}
	// The subgraph's buffers count against the memory budget of the
	// program that runs the node.
	p.pool.budget = x.p.pool.budget
	p.live = true
	p.borrowInputs()
	r.plans[key.String()] = p
	return p, nil
}

func scalarBool(t *tensor, what string) (bool, error) {
	if t.dt != canon.Bool || len(t.i) != 1 {
		return false, fmt.Errorf("%s must be one bool, got %s%v", what, t.dt, t.shape)
	}
	return t.i[0] != 0, nil
}

func (r *subRunner) runIf(x *exec) error {
	o := r.owner.(*canon.If)
	cond, err := scalarBool(x.in(0), "the condition")
	if err != nil {
		return err
	}
	attr, sub := "then_branch", o.Then
	if !cond {
		attr, sub = "else_branch", o.Else
	}
	outs, err := r.run(x, attr, sub, nil)
	if err != nil {
		return err
	}
	for k := 0; k < x.nout() && k < len(outs); k++ {
		x.setValue(k, outs[k])
	}
	return nil
}

func (r *subRunner) runLoop(x *exec) error {
	o := r.owner.(*canon.Loop)
	limit := maxLoopIterations()
	// Without M there is no trip count; a negative M runs no iteration.
	trip, hasTrip := int64(0), false
	if m := x.in(0); m != nil {
		if m.dt != canon.Int64 || len(m.i) != 1 {
			return fmt.Errorf("the trip count M must be one int64, got %s%v", m.dt, m.shape)
		}
		trip, hasTrip = m.i[0], true
	}
	// Without a cond input the body's condition output is ignored: the
	// loop runs M times (ONNX's "for" and endless forms).
	cond, hasCond := true, x.in(1) != nil
	if c := x.in(1); c != nil {
		var err error
		if cond, err = scalarBool(c, "the condition"); err != nil {
			return err
		}
	}
	n, k := o.Carried(), o.ScanOutputs()
	carried := make([]any, n)
	for i := range carried {
		carried[i] = x.value(2 + i)
	}
	scans := make([][]*tensor, k)
	charge := &stackCharge{x: x}
	defer charge.release()
	iter := int64(0)
	for ; (!hasTrip || iter < trip) && cond; iter++ {
		if iter >= limit {
			what := "its condition is still true"
			if hasTrip {
				what = fmt.Sprintf("its trip count is %d", trip)
			}
			return fmt.Errorf("the loop ran %d iterations and %s: stopped at the interpreter's iteration limit (MaxLoopIterations); the model's loop does not end on this input", limit, what)
		}
		formal := []any{
			&tensor{dt: canon.Int64, shape: []int{}, i: []int64{iter}},
			&tensor{dt: canon.Bool, shape: []int{}, i: []int64{boolInt(cond)}},
		}
		formal = append(formal, carried...)
		outs, err := r.run(x, "body", o.Body, formal)
		if err != nil {
			return fmt.Errorf("iteration %d: %w", iter, err)
		}
		condOut, _ := outs[0].(*tensor)
		if condOut == nil {
			return fmt.Errorf("iteration %d: the body's condition output is a %s, want a bool tensor", iter, kindOf(outs[0]))
		}
		next, err := scalarBool(condOut, "the body's condition output")
		if err != nil {
			return fmt.Errorf("iteration %d: %w", iter, err)
		}
		if hasCond {
			cond = next
		}
		copy(carried, outs[1:1+n])
		if err := checkCarried(x, carried); err != nil {
			return fmt.Errorf("iteration %d: %w", iter, err)
		}
		for j, v := range outs[1+n:] {
			s, ok := v.(*tensor)
			if !ok {
				return fmt.Errorf("iteration %d: scan output %d is a %s; a Loop stacks tensors only", iter, j, kindOf(v))
			}
			if j < k {
				if err := charge.add("the loop's scan outputs", s); err != nil {
					return fmt.Errorf("iteration %d: %w", iter, err)
				}
				scans[j] = append(scans[j], s)
			}
		}
	}
	for i := 0; i < n && i < x.nout(); i++ {
		v := carried[i]
		if opt, ok := v.(*optValue); ok && !o.Body.Outputs[1+i].Kind.IsOptional() && o.Body.Outputs[1+i].Kind == opt.kind.Element() {
			// The loop ran no iteration on an optional the body turns into
			// a value: the result is what the optional holds.
			if opt.val == nil {
				return fmt.Errorf("the loop ran no iteration and carried value %d is an empty optional, which the loop's result cannot be", i)
			}
			v = opt.val
			if t, ok := v.(*tensor); ok {
				v = detach(t) // the optional keeps its own
			}
		}
		if t, ok := v.(*tensor); ok {
			x.set(i, cloneIfInput(x, t))
		} else {
			x.setValue(i, v) // sequences and optionals are never changed in place
		}
	}
	for j := 0; j < k && n+j < x.nout(); j++ {
		if len(scans[j]) == 0 {
			x.set(n+j, emptyScan(x, n+j, 0, o.Body.Outputs[1+n+j].DType))
			continue
		}
		out, err := stack(scans[j], 0, false, o.Body.Outputs[1+n+j].DType)
		if err != nil {
			return fmt.Errorf("scan output %d: %v", j, err)
		}
		x.set(n+j, out)
	}
	return nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (r *subRunner) runScan(x *exec) error {
	o := r.owner.(*canon.Scan)
	n, m := o.States(), int(o.NumScanInputs)
	states := make([]*tensor, n)
	for i := range states {
		states[i] = x.in(i)
	}
	inputs := make([]*tensor, m)
	axes := make([]int, m)
	length := -1
	for j := range inputs {
		t := x.in(n + j)
		axis, err := normAxis(o.InputAxis(j), len(t.shape))
		if err != nil {
			return fmt.Errorf("scan input %d: %v", j, err)
		}
		if length >= 0 && t.shape[axis] != length {
			return fmt.Errorf("scan input %d has %d slices along axis %d, the first has %d", j, t.shape[axis], axis, length)
		}
		inputs[j], axes[j], length = t, axis, t.shape[axis]
	}
	k := o.ScanOutputCount()
	scans := make([][]*tensor, k)
	charge := &stackCharge{x: x}
	defer charge.release()
	for step := 0; step < length; step++ {
		formal := append([]*tensor{}, states...)
		for j, t := range inputs {
			at := step
			if o.InputReversed(j) {
				at = length - 1 - step
			}
			formal = append(formal, sliceAxis(t, axes[j], at))
		}
		outs, err := r.runTensors(x, "body", o.Body, formal)
		if err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		copy(states, outs[:n])
		for j, s := range outs[n:] {
			if err := charge.add("the scan's outputs", s); err != nil {
				return fmt.Errorf("step %d: %w", step, err)
			}
			scans[j] = append(scans[j], s)
		}
	}
	for i := 0; i < n && i < x.nout(); i++ {
		x.set(i, cloneIfInput(x, states[i]))
	}
	for j := 0; j < k && n+j < x.nout(); j++ {
		body := o.Body.Outputs[n+j]
		rank := -1
		if len(scans[j]) > 0 {
			rank = len(scans[j][0].shape)
		}
		axis := 0
		if rank >= 0 {
			var err error
			if axis, err = normAxis(o.OutputAxis(j), rank+1); err != nil {
				return fmt.Errorf("scan output %d: %v", j, err)
			}
		}
		if len(scans[j]) == 0 {
			x.set(n+j, emptyScan(x, n+j, o.OutputAxis(j), body.DType))
			continue
		}
		out, err := stack(scans[j], axis, o.OutputReversed(j), body.DType)
		if err != nil {
			return fmt.Errorf("scan output %d: %v", j, err)
		}
		x.set(n+j, out)
	}
	return nil
}

// sliceAxis is t[..., at, ...] along axis, without that axis.
func sliceAxis(t *tensor, axis, at int) *tensor {
	outer := numel(t.shape[:axis])
	inner := numel(t.shape[axis+1:])
	n := t.shape[axis]
	shape := append(append([]int{}, t.shape[:axis]...), t.shape[axis+1:]...)
	out := &tensor{dt: t.dt, shape: shape}
	switch {
	case t.isFloat():
		out.f = make([]float32, outer*inner)
		for o := 0; o < outer; o++ {
			copy(out.f[o*inner:(o+1)*inner], t.f[(o*n+at)*inner:(o*n+at+1)*inner])
		}
	case t.isF64():
		out.d = make([]float64, outer*inner)
		for o := 0; o < outer; o++ {
			copy(out.d[o*inner:(o+1)*inner], t.d[(o*n+at)*inner:(o*n+at+1)*inner])
		}
	default:
		out.i = make([]int64, outer*inner)
		for o := 0; o < outer; o++ {
			copy(out.i[o*inner:(o+1)*inner], t.i[(o*n+at)*inner:(o*n+at+1)*inner])
		}
	}
	return out
}

// stack joins equal-shaped parts along a new axis (in reverse order when
// reversed). No parts give an empty tensor of the body's dtype with a
// zero-length first axis.
func stack(parts []*tensor, axis int, reversed bool, dt canon.DType) (*tensor, error) {
	if len(parts) == 0 {
		if dt == canon.Undefined {
			dt = canon.Float32
		}
		out := &tensor{dt: dt, shape: []int{0}}
		switch {
		case dt == canon.Float32 || dt == canon.Float16 || dt == canon.BFloat16:
			out.f = []float32{}
		case dt == canon.Float64:
			out.d = []float64{}
		default:
			out.i = []int64{}
		}
		return out, nil
	}
	first := parts[0]
	for i, p := range parts {
		if p.dt != first.dt || !sameShape(p.shape, first.shape) {
			return nil, fmt.Errorf("iteration %d yields %s%v, the first %s%v: scan outputs must keep their shape", i, p.dt, p.shape, first.dt, first.shape)
		}
	}
	cnt := len(parts)
	shape := append(append(append([]int{}, first.shape[:axis]...), cnt), first.shape[axis:]...)
	outer := numel(first.shape[:axis])
	inner := numel(first.shape[axis:])
	out := &tensor{dt: first.dt, shape: shape}
	total := outer * cnt * inner
	switch {
	case first.isFloat():
		out.f = make([]float32, total)
	case first.isF64():
		out.d = make([]float64, total)
	default:
		out.i = make([]int64, total)
	}
	for s, p := range parts {
		at := s
		if reversed {
			at = cnt - 1 - s
		}
		for o := 0; o < outer; o++ {
			dst := (o*cnt + at) * inner
			src := o * inner
			switch {
			case first.isFloat():
				copy(out.f[dst:dst+inner], p.f[src:src+inner])
			case first.isF64():
				copy(out.d[dst:dst+inner], p.d[src:src+inner])
			default:
				copy(out.i[dst:dst+inner], p.i[src:src+inner])
			}
		}
	}
	return out, nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// cloneIfInput copies t when it is one of the step's inputs (a loop that
// ran no iteration hands its initial values back): an output must own its
// buffer, which the input's slot may release.
func cloneIfInput(x *exec, t *tensor) *tensor {
	for k := range x.s.in {
		if x.in(k) == t {
			c := &tensor{dt: t.dt, shape: append([]int{}, t.shape...)}
			c.f = append([]float32(nil), t.f...)
			c.d = append([]float64(nil), t.d...)
			c.i = append([]int64(nil), t.i...)
			if t.f != nil && c.f == nil {
				c.f = []float32{}
			}
			if t.d != nil && c.d == nil {
				c.d = []float64{}
			}
			if t.i != nil && c.i == nil {
				c.i = []int64{}
			}
			return c
		}
	}
	return t
}

// stackCharge counts the per-iteration results a node holds until it
// stacks them, against the memory budget, for as long as the node runs.
type stackCharge struct {
	x     *exec
	bytes int64
}

func (c *stackCharge) add(what string, t *tensor) error {
	n := int64(t.size()) * 8
	if err := c.x.p.pool.budget.tryCharge(what, n); err != nil {
		return err
	}
	c.bytes += n
	return nil
}

func (c *stackCharge) release() {
	if b := c.x.p.pool.budget; b != nil {
		b.used -= c.bytes
	}
	c.bytes = 0
}

// emptyScan is scan output k of a node that ran no iteration: zero slices
// along axis of the shape inference gives the output where every other
// axis is known (as ONNX Runtime gives it), else an empty 1-D tensor.
func emptyScan(x *exec, k int, axis int64, dt canon.DType) *tensor {
	if dt == canon.Undefined {
		dt = canon.Float32
	}
	shape := []int{0}
	if v, ok := x.p.g.Values.Lookup(x.s.node.Outputs[k]); ok && v.RankKnown && len(v.Shape) > 0 {
		a, err := normAxis(axis, len(v.Shape))
		known := err == nil
		dims := make([]int, len(v.Shape))
		for i, d := range v.Shape {
			switch {
			case i == a:
			case d.Known():
				dims[i] = int(d.Size)
			default:
				known = false
			}
		}
		if known {
			shape = dims
		}
	}
	out, _ := stack(nil, 0, false, dt)
	out.shape = shape
	return out
}
