package optimize

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// eliminateNoop removes nodes that return their input unchanged (as the
// kind's NoopWhen says, see canon.IsNoop, or a Concat of a whole Split
// along its axis), cancels pairs (a view of a view back to the original shape,
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
		// A node alone that returns its input (the kind's NoopWhen), else
		// the rules that look at the node's producer.
		noop := canon.IsNoop(n, valueTypes(g, n.Inputs), valueTypes(g, n.Outputs))
		if !noop {
			switch op := n.Op.(type) {
			case *canon.Transpose:
				if composeTransposes(ix, dead, n, op) {
					changed = true
					ix = newIndex(g)
					x = n.Inputs[0]
					noop = canon.IsNoop(n, valueTypes(g, n.Inputs), valueTypes(g, n.Outputs))
				}
			case *canon.Concat:
				x, noop = concatOfSplit(g, ix, n, op)
				if !noop {
					x = n.Inputs[0]
				}
			case *canon.Cast:
				noop, x = castBack(g, ix, n, op)
			default:
				if !canon.IsView(n.Op) {
					break
				}
				if r, ok := op.(*canon.Reshape); ok && mergeReshape(ix, n, r) {
					changed = true
					ix = newIndex(g)
				}
				// A view of a view back to the first one's input shape
				// (Unsqueeze then Squeeze, Flatten then Reshape back) is its
				// input: views keep the elements in order.
				if p := ix.producer[x]; p != nil && !dead[p] && canon.IsView(p.Op) && len(p.Inputs) > 0 && sameStaticShape(g, p.Inputs[0], y) {
					noop, x = true, p.Inputs[0]
				}
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

// valueTypes are the types of the named values (zero for an absent or
// unknown one).
func valueTypes(g *canon.Graph, names []string) []canon.ValueInfo {
	out := make([]canon.ValueInfo, len(names))
	for i, name := range names {
		if name != "" {
			out[i] = g.Values.Get(name)
		}
	}
	return out
}

// composeTransposes makes Transpose(Transpose(x)) one Transpose of x: the
// output's axis i is the first one's output axis op.Perm[i], which is x's
// axis t1.Perm[op.Perm[i]]. It reports whether it did.
func composeTransposes(ix *index, dead map[*canon.Node]bool, n *canon.Node, op *canon.Transpose) bool {
	p := ix.producer[n.Inputs[0]]
	if p == nil || dead[p] {
		return false
	}
	t1, ok := p.Op.(*canon.Transpose)
	if !ok || len(t1.Perm) != len(op.Perm) {
		return false
	}
	perm := make([]int64, len(op.Perm))
	for i, a := range op.Perm {
		perm[i] = t1.Perm[a]
	}
	n.Op = &canon.Transpose{Perm: perm}
	n.Inputs[0] = p.Inputs[0]
	return true
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

// castBack reports the Cast back after a lossless widening (f32 -> f64 ->
// f32, i32 -> i64 -> i32), which returns the first Cast's input; it
// returns the value to read instead. (A Cast to the type the value already
// has is the kind's NoopWhen.)
func castBack(g *canon.Graph, ix *index, n *canon.Node, op *canon.Cast) (bool, string) {
	x := n.Inputs[0]
	if !g.Values.Has(x) {
		return false, x
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
