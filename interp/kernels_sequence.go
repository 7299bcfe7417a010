package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// sequenceKinds are the kinds whose nodes read or make sequences and
// optionals: a program with one keeps a table of boxed values.
var sequenceKinds = map[string]bool{}

func init() {
	// The kernels move tensors into and out of lists: every dtype, float64
	// included, is carried as it is.
	m := map[string]kernelEntry{
		"SequenceConstruct":  computesF64(fixed(runSequenceConstruct)),
		"SequenceEmpty":      computesF64(withOp(runSequenceEmpty)),
		"SequenceAt":         computesF64(fixed(runSequenceAt)),
		"SequenceInsert":     computesF64(fixed(runSequenceInsert)),
		"SequenceErase":      computesF64(fixed(runSequenceErase)),
		"SequenceLength":     computesF64(fixed(runSequenceLength)),
		"SplitToSequence":    computesF64(withOp(runSplitToSequence)),
		"ConcatFromSequence": computesF64(withOp(runConcatFromSequence)),
		"SequenceMap":        computesF64(func(op canon.Op) kernel { return newSubRunner(op).runSequenceMap }),
		"Optional":           computesF64(withOp(runOptional)),
		"OptionalHasElement": computesF64(fixed(runOptionalHasElement)),
		"OptionalGetElement": computesF64(fixed(runOptionalGetElement)),
	}
	for k := range m {
		sequenceKinds[k] = true
	}
	optable.Add(&kernels, m)
}

func runSequenceConstruct(x *exec) error {
	s := &seqValue{}
	for k := range x.s.in {
		t := x.in(k)
		if t == nil {
			return fmt.Errorf("input %q is a %s, want a tensor", x.s.node.Inputs[k], kindOf(x.value(k)))
		}
		if k == 0 {
			s.dt = t.dt
		} else if t.dt != s.dt {
			return fmt.Errorf("input %q is %s, the first %s: a sequence holds one dtype", x.s.node.Inputs[k], t.dt, s.dt)
		}
		s.items = append(s.items, detach(t))
	}
	x.setValue(0, s)
	return nil
}

func runSequenceEmpty(x *exec, o *canon.SequenceEmpty) error {
	x.setValue(0, &seqValue{dt: o.DType})
	return nil
}

// position reads the optional position input k against a sequence of n
// tensors: in [-n, n-1], or [-n, n] when inserting; def when absent.
func (x *exec) position(k, n int, inserting bool, def int) (int, error) {
	if k >= len(x.s.in) || x.s.in[k] < 0 {
		return def, nil
	}
	t := x.in(k)
	if t == nil || t.i == nil || len(t.i) != 1 || (t.dt != canon.Int64 && t.dt != canon.Int32) {
		return 0, fmt.Errorf("position %q must be one int32 or int64", x.s.node.Inputs[k])
	}
	p, hi := t.i[0], int64(n)-1
	if inserting {
		hi = int64(n)
	}
	if p < -int64(n) || p > hi {
		return 0, fmt.Errorf("position %d is outside [%d, %d] for a sequence of %d tensors", p, -n, hi, n)
	}
	if p < 0 {
		p += int64(n)
	}
	return int(p), nil
}

func runSequenceAt(x *exec) error {
	s, err := x.seqIn(0)
	if err != nil {
		return err
	}
	p, err := x.position(1, len(s.items), false, 0)
	if err != nil {
		return err
	}
	x.set(0, detach(s.items[p]))
	return nil
}

func runSequenceInsert(x *exec) error {
	s, err := x.seqIn(0)
	if err != nil {
		return err
	}
	t := x.in(1)
	if t == nil {
		return fmt.Errorf("input %q is a %s, want a tensor", x.s.node.Inputs[1], kindOf(x.value(1)))
	}
	if len(s.items) > 0 && t.dt != s.dt || len(s.items) == 0 && s.dt != canon.Undefined && t.dt != s.dt {
		return fmt.Errorf("tensor %q is %s, the sequence holds %s", x.s.node.Inputs[1], t.dt, s.dt)
	}
	p, err := x.position(2, len(s.items), true, len(s.items))
	if err != nil {
		return err
	}
	out := &seqValue{dt: t.dt, items: make([]*tensor, 0, len(s.items)+1)}
	out.items = append(append(append(out.items, s.items[:p]...), detach(t)), s.items[p:]...)
	x.setValue(0, out)
	return nil
}

func runSequenceErase(x *exec) error {
	s, err := x.seqIn(0)
	if err != nil {
		return err
	}
	if len(s.items) == 0 {
		return fmt.Errorf("the sequence is empty: there is no tensor to erase")
	}
	p, err := x.position(1, len(s.items), false, len(s.items)-1)
	if err != nil {
		return err
	}
	out := &seqValue{dt: s.dt, items: make([]*tensor, 0, len(s.items)-1)}
	out.items = append(append(out.items, s.items[:p]...), s.items[p+1:]...)
	x.setValue(0, out)
	return nil
}

func runSequenceLength(x *exec) error {
	s, err := x.seqIn(0)
	if err != nil {
		return err
	}
	x.set(0, &tensor{dt: canon.Int64, shape: []int{}, i: []int64{int64(len(s.items))}})
	return nil
}

func runSplitToSequence(x *exec, o *canon.SplitToSequence) error {
	t := x.in(0)
	axis, err := normAxis(o.Axis, len(t.shape))
	if err != nil {
		return err
	}
	d := t.shape[axis]
	var lengths []int
	split := x.in(1)
	switch {
	case split == nil:
		for range d {
			lengths = append(lengths, 1)
		}
	case split.i == nil:
		return fmt.Errorf("split %q is %s, want int32 or int64", x.s.node.Inputs[1], split.dt)
	case len(split.shape) == 0:
		n := split.i[0]
		if n <= 0 {
			return fmt.Errorf("split %d must be positive", n)
		}
		for at := 0; at < d; at += int(n) {
			lengths = append(lengths, min(int(n), d-at))
		}
	case len(split.shape) == 1:
		sum := 0
		for _, v := range split.i {
			if v < 0 {
				return fmt.Errorf("split lengths %v must not be negative", split.i)
			}
			sum += int(v)
			lengths = append(lengths, int(v))
		}
		if sum != d {
			return fmt.Errorf("split lengths %v add up to %d, but axis %d has %d", split.i, sum, axis, d)
		}
	default:
		return fmt.Errorf("split %q has rank %d, want a scalar or a 1-D list", x.s.node.Inputs[1], len(split.shape))
	}
	s := &seqValue{dt: t.dt}
	at := 0
	for _, n := range lengths {
		piece := sliceRange(t, axis, at, n)
		if split == nil && !o.KeepDims {
			piece.shape = append(piece.shape[:axis:axis], piece.shape[axis+1:]...)
		}
		s.items = append(s.items, piece)
		at += n
	}
	x.setValue(0, s)
	return nil
}

// sliceRange is t[..., at:at+n, ...] along axis, a new tensor.
func sliceRange(t *tensor, axis, at, n int) *tensor {
	outer, inner, d := numel(t.shape[:axis]), numel(t.shape[axis+1:]), t.shape[axis]
	shape := append([]int{}, t.shape...)
	shape[axis] = n
	out := &tensor{dt: t.dt, shape: shape}
	chunk := n * inner
	copyRows := func(dst, src int) {
		switch {
		case t.isFloat():
			copy(out.f[dst:dst+chunk], t.f[src:src+chunk])
		case t.isF64():
			copy(out.d[dst:dst+chunk], t.d[src:src+chunk])
		default:
			copy(out.i[dst:dst+chunk], t.i[src:src+chunk])
		}
	}
	allocLike(out, t, outer*chunk)
	for o := 0; o < outer; o++ {
		copyRows(o*chunk, (o*d+at)*inner)
	}
	return out
}

// allocLike gives out storage for n elements of t's kind of storage.
func allocLike(out, t *tensor, n int) {
	switch {
	case t.isFloat():
		out.f = make([]float32, n)
	case t.isF64():
		out.d = make([]float64, n)
	default:
		out.i = make([]int64, n)
	}
}

func runConcatFromSequence(x *exec, o *canon.ConcatFromSequence) error {
	s, err := x.seqIn(0)
	if err != nil {
		return err
	}
	if len(s.items) == 0 {
		return fmt.Errorf("the sequence is empty: there is nothing to concatenate (its tensors' shape is unknown)")
	}
	first := s.items[0]
	if o.NewAxis {
		axis, err := normAxis(o.Axis, len(first.shape)+1)
		if err != nil {
			return err
		}
		out, err := stack(s.items, axis, false, s.dt)
		if err != nil {
			return fmt.Errorf("stacking the sequence: %v", err)
		}
		x.set(0, out)
		return nil
	}
	axis, err := normAxis(o.Axis, len(first.shape))
	if err != nil {
		return err
	}
	total := 0
	for i, t := range s.items {
		if len(t.shape) != len(first.shape) || t.dt != first.dt {
			return fmt.Errorf("tensor %d is %s%v, the first %s%v: they cannot be concatenated", i, t.dt, t.shape, first.dt, first.shape)
		}
		for k := range t.shape {
			if k != axis && t.shape[k] != first.shape[k] {
				return fmt.Errorf("tensor %d has shape %v, the first %v: they differ off axis %d", i, t.shape, first.shape, axis)
			}
		}
		total += t.shape[axis]
	}
	shape := append([]int{}, first.shape...)
	shape[axis] = total
	outer, inner := numel(first.shape[:axis]), numel(first.shape[axis+1:])
	out := &tensor{dt: first.dt, shape: shape}
	allocLike(out, first, outer*total*inner)
	for oi := 0; oi < outer; oi++ {
		dst := oi * total * inner
		for _, t := range s.items {
			n := t.shape[axis] * inner
			src := oi * n
			switch {
			case first.isFloat():
				copy(out.f[dst:dst+n], t.f[src:src+n])
			case first.isF64():
				copy(out.d[dst:dst+n], t.d[src:src+n])
			default:
				copy(out.i[dst:dst+n], t.i[src:src+n])
			}
			dst += n
		}
	}
	x.set(0, out)
	return nil
}

func runOptional(x *exec, o *canon.Optional) error {
	v := x.value(0)
	if v == nil {
		x.setValue(0, &optValue{kind: o.Type.Kind, dt: o.Type.DType})
		return nil
	}
	switch b := v.(type) {
	case *tensor:
		x.setValue(0, &optValue{kind: canon.OptionalTensor, dt: b.dt, val: detach(b)})
	case *seqValue:
		x.setValue(0, &optValue{kind: canon.OptionalSequence, dt: b.dt, val: b})
	default:
		return fmt.Errorf("input %q is already an optional", x.s.node.Inputs[0])
	}
	return nil
}

func runOptionalHasElement(x *exec) error {
	has := int64(0)
	switch b := x.value(0).(type) {
	case nil:
	case *optValue:
		has = boolInt(b.val != nil)
	default:
		has = 1 // a tensor or a sequence is always there
	}
	x.set(0, &tensor{dt: canon.Bool, shape: []int{}, i: []int64{has}})
	return nil
}

func runOptionalGetElement(x *exec) error {
	v := x.value(0)
	if o, ok := v.(*optValue); ok {
		if o.val == nil {
			return fmt.Errorf("optional %q is empty", x.s.node.Inputs[0])
		}
		v = o.val
	}
	if t, ok := v.(*tensor); ok {
		x.set(0, detach(t))
		return nil
	}
	x.setValue(0, v)
	return nil
}

func (r *subRunner) runSequenceMap(x *exec) error {
	o := r.owner.(*canon.SequenceMap)
	m := o.Mapped()
	first, err := x.seqIn(0)
	if err != nil {
		return err
	}
	n := len(first.items)
	ins := make([]any, m)
	for i := range m {
		ins[i] = x.value(i)
		if s, ok := ins[i].(*seqValue); ok && len(s.items) != n {
			return fmt.Errorf("input %q has %d tensors, the first sequence %d: they must match", x.s.node.Inputs[i], len(s.items), n)
		}
	}
	outs := make([]*seqValue, x.nout())
	for j := range outs {
		dt := canon.Undefined
		if j < len(x.s.outDT) {
			dt = x.s.outDT[j]
		}
		outs[j] = &seqValue{dt: dt}
	}
	charge := &stackCharge{x: x}
	defer charge.release()
	for pos := range n {
		formal := make([]*tensor, m)
		for i, v := range ins {
			switch b := v.(type) {
			case *seqValue:
				formal[i] = b.items[pos]
			case *tensor:
				formal[i] = b
			default:
				return fmt.Errorf("input %q is a %s; SequenceMap maps sequences and passes tensors", x.s.node.Inputs[i], kindOf(v))
			}
		}
		res, err := r.runTensors(x, "body", o.Body, formal)
		if err != nil {
			return fmt.Errorf("position %d: %w", pos, err)
		}
		for j := range outs {
			if err := charge.add("the mapped sequences", res[j]); err != nil {
				return fmt.Errorf("position %d: %w", pos, err)
			}
			if outs[j].dt == canon.Undefined {
				outs[j].dt = res[j].dt
			}
			outs[j].items = append(outs[j].items, res[j])
		}
	}
	for j, s := range outs {
		x.setValue(j, s)
	}
	return nil
}
