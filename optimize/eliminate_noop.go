package optimize

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// eliminateNoop removes nodes that return their input unchanged (a view,
// such as a Reshape, to the same static shape, identity Transpose, zero
// Pad, a Slice that takes everything, Concat of one input), composes
// consecutive Transposes into one, and makes a Reshape of a view read the
// view's input.
func eliminateNoop(g *canon.Graph) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	ix := newIndex(g)
	dead := map[*canon.Node]bool{}
	changed := false
	for _, n := range g.Nodes {
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
