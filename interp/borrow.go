package interp

// A Program's tensor inputs are borrowed: the caller's tensors are read
// where they lie (a float32 input's bytes viewed as floats when aligned),
// not copied into the interpreter's buffers, and tensors handed to a
// subgraph (a control-flow node's formal inputs and captures) are lent to
// the subgraph's Program as they are. A borrowed slot is never given to a step
// to overwrite, never released to the pool and never recycled, just as a
// constant's; kernels copy what they do not own, so the body cannot change
// a value the node's own Program still holds.

// borrowInputs makes every tensor input of p a borrowed slot.
func (p *Program) borrowInputs() {
	p.borrowed = make([]bool, p.slots)
	for _, in := range p.inputs {
		if in.info.IsTensor() {
			p.borrowed[in.slot] = true
		}
	}
	for _, s := range p.steps {
		for k, id := range s.in {
			if id >= 0 && p.borrowed[id] {
				s.owned[k] = false
			}
		}
		kept := s.release[:0]
		for _, id := range s.release {
			if !p.borrowed[id] {
				kept = append(kept, id)
			}
		}
		s.release = kept
	}
}

// lentTensor is the tensor a caller lends for a borrowed input slot, or
// nil when v is not one.
func (p *Program) lentTensor(slot int, v any) *tensor {
	l, ok := v.(*liveValue)
	if !ok || p.borrowed == nil || !p.borrowed[slot] {
		return nil
	}
	t, _ := l.v.(*tensor)
	return t
}
