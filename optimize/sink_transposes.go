package optimize

import "github.com/modelbridge/modelbridge/canon"

// sinkTransposes cancels a Transpose(p) followed by a chain of elementwise
// ops (activations, or arithmetic with a scalar constant) and a
// Transpose(q) where q undoes p: elementwise ops commute with any
// permutation, so the chain runs on the untransposed tensor and both
// Transposes go. This collapses the NHWC wrappers some exporters put around
// activations. A Transpose that reads a Transpose and composes with it to
// the identity is removed too.
func sinkTransposes(g *canon.Graph) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	ix := newIndex(g)
	dead := map[*canon.Node]bool{}
	for _, t2 := range g.Nodes {
		q, ok := t2.Op.(*canon.Transpose)
		if !ok || dead[t2] || len(t2.Inputs) != 1 || len(t2.Outputs) != 1 {
			continue
		}
		// Walk up through single-use elementwise ops to a Transpose.
		var chain []*canon.Node // from the last op up to the first
		v := t2.Inputs[0]
		var t1 *canon.Node
		for {
			p := ix.producer[v]
			if p == nil || dead[p] || len(p.Outputs) != 1 {
				break
			}
			if _, isT := p.Op.(*canon.Transpose); isT {
				t1 = p
				break
			}
			if !elementwiseUnary(ix, p) || !ix.onlyFeeds(v, nextReader(chain, t2)) {
				break
			}
			chain = append(chain, p)
			v = p.Inputs[0]
		}
		if t1 == nil {
			continue
		}
		p := t1.Op.(*canon.Transpose).Perm
		if len(p) != len(q.Perm) || !isIdentityPerm(composePerm(p, q.Perm)) {
			continue
		}
		x := t1.Inputs[0]
		if len(chain) == 0 {
			// Transpose(Transpose(x)) == x.
			if forward(ix, t2.Outputs[0], x) {
				dead[t2] = true
				ix = newIndex(g)
			}
			continue
		}
		// The first op of the chain must be T1's only reader: T1 then dies.
		first := chain[len(chain)-1]
		if !ix.onlyFeeds(t1.Outputs[0], first) {
			continue
		}
		last := chain[0]
		y := t2.Outputs[0]
		first.Inputs[0] = x
		// The last op now defines T2's output directly; its old output
		// name fed T2 alone, so renaming it is safe.
		last.Outputs[0] = y
		dead[t1], dead[t2] = true, true
		ix = newIndex(g)
	}
	removeNodes(g, dead)
	return len(dead) > 0, nil
}

// nextReader is the node that reads the value being walked: the op below
// it in the chain, or the closing Transpose.
func nextReader(chain []*canon.Node, t2 *canon.Node) *canon.Node {
	if len(chain) == 0 {
		return t2
	}
	return chain[len(chain)-1]
}

// composePerm is the permutation of Transpose(q) after Transpose(p).
func composePerm(p, q []int64) []int64 {
	out := make([]int64, len(q))
	for i, a := range q {
		if a < 0 || int(a) >= len(p) {
			return []int64{-1}
		}
		out[i] = p[a]
	}
	return out
}

// elementwiseUnary reports ops that map each element independently and so
// commute with transposition: activations, and binary arithmetic whose other
// operand is a scalar constant (it broadcasts the same in any layout).
func elementwiseUnary(ix *index, n *canon.Node) bool {
	switch n.Op.(type) {
	case *canon.Unary, *canon.LeakyRelu, *canon.Clip, *canon.HardSigmoid:
		return len(n.Inputs) == 1
	case *canon.Binary:
		if len(n.Inputs) != 2 {
			return false
		}
		c := ix.constant(n.Inputs[1])
		return c != nil && c.NumElements() == 1 && len(c.Shape) <= 1
	}
	return false
}
