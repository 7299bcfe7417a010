package canon

import "slices"

// The NoopWhen slot: when a node returns its input unchanged, so that a
// pass may drop it. Pairs that cancel (a Transpose and its inverse, a
// widening Cast and the Cast back, a Split of a Concat) involve two nodes
// and stay rules of the pass that removes them.

// NoNoopSetting is the reason of kinds that compute new values: no
// attribute setting alone makes output 0 a copy of input 0.
const NoNoopSetting = "computes new values: no attribute setting alone makes its output a copy of its input"

// IsNoop reports whether node n returns its input 0 unchanged as its only
// output, given the types of its inputs and outputs (a static shape or
// dtype that is unknown makes the answer false). A view (Traits.View) is
// a no-op to its input's own static shape; other kinds answer through
// OpDef.NoopWhen.
func IsNoop(n *Node, in, out []ValueInfo) bool {
	d := DefOf(n.Op)
	if d == nil || len(in) == 0 || len(out) != 1 || n.Inputs[0] == "" {
		return false
	}
	if d.NoopWhen != nil {
		return d.NoopWhen(n, in, out)
	}
	return d.Traits.View && sameStatic(in[0], out[0])
}

// sameStatic reports that a and b have the same static shape.
func sameStatic(a, b ValueInfo) bool {
	sa, ok1 := a.StaticShape()
	sb, ok2 := b.StaticShape()
	return ok1 && ok2 && slices.Equal(sa, sb)
}

// onlyInput reports that n has no inputs beyond slot 0 (run-time
// parameters make the attributes meaningless).
func onlyInput(n *Node) bool {
	for _, x := range n.Inputs[1:] {
		if x != "" {
			return false
		}
	}
	return true
}

// transposeNoop: the identity permutation.
func transposeNoop(n *Node, _, _ []ValueInfo) bool {
	for i, a := range n.Op.(*Transpose).Perm {
		if a != int64(i) {
			return false
		}
	}
	return true
}

// padNoop: constant pads that are all zero (run-time pads leave the
// attributes nil, so they must be absent).
func padNoop(n *Node, _, _ []ValueInfo) bool {
	op := n.Op.(*Pad)
	zero := func(v []int64) bool { return !slices.ContainsFunc(v, func(x int64) bool { return x != 0 }) }
	return len(n.Inputs) == 1 && zero(op.PadsBegin) && zero(op.PadsEnd)
}

// sliceNoop: constant unit steps that keep the whole static shape.
func sliceNoop(n *Node, in, out []ValueInfo) bool {
	steps := n.Op.(*Slice).Steps
	return len(n.Inputs) == 1 && sameStatic(in[0], out[0]) && !slices.ContainsFunc(steps, func(s int64) bool { return s != 1 })
}

// concatNoop: a Concat of one input.
func concatNoop(n *Node, _, _ []ValueInfo) bool { return len(n.Inputs) == 1 }

// castNoop: a Cast to the dtype the input already has.
func castNoop(n *Node, in, _ []ValueInfo) bool {
	return in[0].DType != Undefined && in[0].DType == n.Op.(*Cast).To
}

// resizeNoop: an output of the input's static shape maps every coordinate
// to itself (scale 1), except under tf_half_pixel_for_nn, which maps x to
// x + 0.5 and so rounds up with the ceil modes.
func resizeNoop(n *Node, in, out []ValueInfo) bool {
	op := n.Op.(*Resize)
	if op.CoordTransform == TFHalfPixelForNN && (op.Nearest == RoundPreferCeil || op.Nearest == Ceil) {
		return false
	}
	return sameStatic(in[0], out[0])
}
