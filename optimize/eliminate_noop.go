package optimize

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// eliminateNoop removes nodes that return their input unchanged (a view,
// such as a Reshape, to the same static shape, identity Transpose, zero
// Pad, a Slice that takes everything, Concat of one input, a Cast to the
// input's type, a Resize to the same size, a Concat of a whole Split along
// its axis), cancels pairs (a view of a view back to the original shape,
// such as Unsqueeze then Squeeze; a widening Cast and the Cast back; a
// Split of a Concat into its parts), composes consecutive Transposes into one, and
// makes a Reshape of a view read the view's input.
func eliminateNoop(g *canon.Graph) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	ix := newIndex(g)
	dead := map[*canon.Node]bool{}
	changed := false
	for _, n := range g.Nodes {
		if _, ok := n.Op.(*canon.Split); ok && splitOfConcat(g, ix, n) {
			dead[n] = true
			ix = newIndex(g)
			continue
		}
		if len(n.Inputs) == 0 || n.Inputs[0] == "" || len(n.Outputs) != 1 || n.Outputs[0] == "" {
			continue
		}
		x, y := n.Inputs[0], n.Outputs[0]
		noop := false
		switch op := n.Op.(type) {
		case *canon.Transpose:
			if isIdentityPerm(op.Perm) {
				noop = true
			} else if p := ix.producer[x]; p != nil && !dead[p] {
				if t1, ok := p.Op.(*canon.Transpose); ok && len(t1.Perm) == len(op.Perm) {
					// out axis i = T1-output axis op.Perm[i] = x axis t1.Perm[op.Perm[i]]
					perm := make([]int64, len(op.Perm))
					for i, a := range op.Perm {
						perm[i] = t1.Perm[a]
					}
					n.Op = &canon.Transpose{Perm: perm}
					n.Inputs[0] = p.Inputs[0]
					changed = true
					noop = isIdentityPerm(perm)
					x = n.Inputs[0]
					ix = newIndex(g)
				}
			}
		case *canon.Pad:
			// Pads given as a run-time input leave the attributes nil.
			noop = len(n.Inputs) == 1 && allZeroInts(op.PadsBegin) && allZeroInts(op.PadsEnd)
		case *canon.Slice:
			noop = len(n.Inputs) == 1 && sameStaticShape(g, x, y) && allOnes(op.Steps)
		case *canon.Concat:
			noop = len(n.Inputs) == 1
			if !noop {
				x, noop = concatOfSplit(g, ix, n, op)
				if !noop {
					x = n.Inputs[0]
				}
			}
		case *canon.Cast:
			noop, x = castNoop(g, ix, n, op)
		case *canon.Resize:
			noop = identityResize(g, n, op)
		default:
			if !canon.IsView(n.Op) {
				break
			}
			// A view keeps the elements in order: to the same shape it
			// returns its input.
			noop = sameStaticShape(g, x, y)
			if r, ok := op.(*canon.Reshape); ok && !noop && mergeReshape(ix, n, r) {
				changed = true
				ix = newIndex(g)
			}
			// A view of a view back to the first one's input shape
			// (Unsqueeze then Squeeze, Flatten then Reshape back) is its
			// input: views keep the elements in order.
			if p := ix.producer[x]; !noop && p != nil && !dead[p] && canon.IsView(p.Op) && len(p.Inputs) > 0 && sameStaticShape(g, p.Inputs[0], y) {
				noop, x = true, p.Inputs[0]
			}
		}
		if noop && forward(ix, y, x) {
			dead[n] = true
			ix = newIndex(g)
		}
	}
	removeNodes(g, dead)
	return changed || len(dead) > 0, nil
}

// mergeReshape makes Reshape(Reshape(x)) read x directly when the outer
// target does not copy dims from its input (no 0 codes): the result then
// depends only on the element count, which the inner Reshape keeps.
func mergeReshape(ix *index, n *canon.Node, op *canon.Reshape) bool {
	if op.Shape == nil || (len(n.Inputs) > 1 && n.Inputs[1] != "") {
		return false
	}
	if !op.AllowZero && slices.Contains(op.Shape, 0) {
		return false
	}
	// Any view keeps the element count and order, so the Reshape can read
	// the view's input instead.
	p := ix.producer[n.Inputs[0]]
	if p == nil || !canon.IsView(p.Op) {
		return false
	}
	n.Inputs[0] = p.Inputs[0]
	return true
}

func sameStaticShape(g *canon.Graph, a, b string) bool {
	sa, ok1 := staticShape(g, a)
	sb, ok2 := staticShape(g, b)
	return ok1 && ok2 && slices.Equal(sa, sb)
}

func isIdentityPerm(p []int64) bool {
	for i, a := range p {
		if a != int64(i) {
			return false
		}
	}
	return true
}

func allZeroInts(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func allOnes(v []int64) bool {
	for _, x := range v {
		if x != 1 {
			return false
		}
	}
	return true
}

// castNoop reports a Cast that returns its input's values: a Cast to the
// type the value already has, or the Cast back after a lossless widening
// (f32 -> f64 -> f32, i32 -> i64 -> i32); it returns the value to read
// instead.
func castNoop(g *canon.Graph, ix *index, n *canon.Node, op *canon.Cast) (bool, string) {
	x := n.Inputs[0]
	xv, ok := g.Values.Lookup(x)
	if !ok {
		return false, x
	}
	if xv.DType == op.To {
		return true, x
	}
	p := ix.producer[x]
	if p == nil {
		return false, x
	}
	inner, ok := p.Op.(*canon.Cast)
	if !ok {
		return false, x
	}
	src, ok := g.Values.Lookup(p.Inputs[0])
	if ok && src.DType == op.To && widens(src.DType, inner.To) {
		return true, p.Inputs[0]
	}
	return false, x
}

// widens reports that every value of type from is exactly representable in
// type to.
func widens(from, to canon.DType) bool {
	switch from {
	case canon.Float16, canon.BFloat16:
		return to == canon.Float32 || to == canon.Float64
	case canon.Float32:
		return to == canon.Float64
	case canon.Int8:
		return to == canon.Int16 || to == canon.Int32 || to == canon.Int64
	case canon.Uint8:
		return to == canon.Int16 || to == canon.Uint16 || to == canon.Int32 || to == canon.Uint32 || to == canon.Int64 || to == canon.Uint64
	case canon.Int16:
		return to == canon.Int32 || to == canon.Int64
	case canon.Uint16:
		return to == canon.Int32 || to == canon.Uint32 || to == canon.Int64 || to == canon.Uint64
	case canon.Int32:
		return to == canon.Int64 || to == canon.Float64
	case canon.Uint32:
		return to == canon.Int64 || to == canon.Uint64 || to == canon.Float64
	}
	return false
}

// identityResize reports a Resize whose output has its input's static
// shape: every coordinate then maps to itself (scale 1), except under
// tf_half_pixel_for_nn, which maps x to x + 0.5 and so rounds up with the
// ceil modes.
func identityResize(g *canon.Graph, n *canon.Node, op *canon.Resize) bool {
	if !sameStaticShape(g, n.Inputs[0], n.Outputs[0]) {
		return false
	}
	if op.CoordTransform == canon.TFHalfPixelForNN && (op.Nearest == canon.RoundPreferCeil || op.Nearest == canon.Ceil) {
		return false
	}
	return true
}
