package optimize

import (
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// foldIntoConvInput folds a per-channel affine y = s·x + t (a BatchNorm, or
// a Mul, Add or Sub by a per-channel constant) into the Convs that read y,
// when every reader is a Conv, without padding unless t = 0:
//
//	W'[o, ci, k] = W[o, ci, k] · s[c],  b'[o] = b[o] + Σ_{ci,k} W[o, ci, k] · t[c]
//
// with c the input channel (group g of o: c = g·C/G + ci). Padding would
// make a shift inexact: a padded position of x is 0, while the affine would
// have turned it into t. Computed in float64 and rounded once. Convs whose
// weights other nodes share, or a new bias bigger than the constants the
// affine frees, leave the affine in place (the model must not grow).
func foldIntoConvInput(g *canon.Graph) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	changed := false
	for {
		ix := newIndex(g)
		nm := newNamer(g)
		done := false
		for _, a := range g.Nodes {
			if len(a.Inputs) == 0 || len(a.Outputs) != 1 {
				continue
			}
			x, y := a.Inputs[0], a.Outputs[0]
			if _, isBin := a.Op.(*canon.Binary); isBin && ix.constant(x) != nil {
				x = a.Inputs[1] // c + x, c * x
			}
			readers := ix.consumers[y]
			if ix.isOutput[y] || len(readers) == 0 {
				continue
			}
			s, t, ok := channelAffineOf(g, ix, a, x)
			if !ok || !sameStaticShape(g, x, y) {
				continue
			}
			noShift := allZero(t)
			if slices.ContainsFunc(readers, func(c *canon.Node) bool { return !convReading(ix, c, y, noShift) }) || !foldFreesParams(ix, a, readers, noShift) {
				continue
			}
			var repl []*canon.Node
			var added []*canon.Tensor
			for _, c := range readers {
				nn, ts, ok := scaleConvInput(ix, nm, c, x, s, t)
				if !ok {
					break
				}
				repl = append(repl, nn)
				added = append(added, ts...)
			}
			if len(repl) != len(readers) {
				continue
			}
			for i, c := range readers {
				replaceNode(g, c, repl[i])
			}
			removeNodes(g, map[*canon.Node]bool{a: true})
			g.Initializers = append(g.Initializers, added...)
			changed, done = true, true
			break
		}
		if !done {
			return changed, nil
		}
	}
}

// convReading reports a Conv reading y as its data input only, with a
// constant f32 weight and (if any) a constant bias, and without padding
// unless padded is allowed (a pure scale maps the padding zeros to zeros).
func convReading(ix *index, c *canon.Node, y string, padded bool) bool {
	op, ok := c.Op.(*canon.Conv)
	if !ok || c.Inputs[0] != y || slices.Contains(c.Inputs[1:], y) {
		return false
	}
	if !padded && (slices.ContainsFunc(op.PadsBegin, nonZero) || slices.ContainsFunc(op.PadsEnd, nonZero)) {
		return false
	}
	w := ix.constant(c.Inputs[1])
	if w == nil || w.DType != canon.Float32 || len(w.Shape) < 3 {
		return false
	}
	return len(c.Inputs) < 3 || c.Inputs[2] == "" || ix.constant(c.Inputs[2]) != nil
}

// scaleConvInput returns conv c reading x, with weights scaled by s per
// input channel and t folded into the bias.
func scaleConvInput(ix *index, nm *namer, c *canon.Node, x string, s, t []float64) (*canon.Node, []*canon.Tensor, bool) {
	op := c.Op.(*canon.Conv)
	wt := ix.constant(c.Inputs[1])
	w, err := f32Values(wt)
	if err != nil {
		return nil, nil, false
	}
	O, cg := wt.Shape[0], wt.Shape[1]
	G := max(op.Group, 1)
	if O%G != 0 || cg*G != int64(len(s)) {
		return nil, nil, false
	}
	k := canon.NumElements(wt.Shape[2:])
	og := O / G
	b := make([]float64, O)
	if len(c.Inputs) > 2 && c.Inputs[2] != "" {
		bv, err := f32Values(ix.constant(c.Inputs[2]))
		if err != nil || int64(len(bv)) != O {
			return nil, nil, false
		}
		copy(b, bv)
	}
	nw := make([]float64, len(w))
	for o := int64(0); o < O; o++ {
		c0 := (o / og) * cg
		for ci := int64(0); ci < cg; ci++ {
			sc, tc := s[c0+ci], t[c0+ci]
			for j := int64(0); j < k; j++ {
				i := (o*cg+ci)*k + j
				nw[i] = w[i] * sc
				b[o] += w[i] * tc
			}
		}
	}
	if !finite(nw) || !finite(b) {
		return nil, nil, false
	}
	nn := cloneNode(c)
	nn.Inputs[0] = x
	wname := nm.fresh(wt.Name + "_scaled")
	nn.Inputs[1] = wname
	out := []*canon.Tensor{f32Tensor(wname, wt.Shape, slotLayout(op, 1, len(wt.Shape)), nw)}
	if hasBias(c) || !allZero(t) {
		bname := nm.fresh(wt.Name + "_shifted_bias")
		if len(nn.Inputs) < 3 {
			nn.Inputs = append(nn.Inputs, "")
		}
		nn.Inputs[2] = bname
		out = append(out, f32Tensor(bname, []int64{O}, slotLayout(op, 2, 1), b))
	}
	return nn, out, true
}

func hasBias(c *canon.Node) bool { return len(c.Inputs) > 2 && c.Inputs[2] != "" }

// foldFreesParams tells whether folding a into its reader convs keeps the
// parameter count from growing: each conv's weight (and bias) must be read
// by that conv alone, so the rewritten ones replace them, and new biases
// (for convs without one, when there is a shift) must not outnumber the
// affine's own constants.
func foldFreesParams(ix *index, a *canon.Node, readers []*canon.Node, noShift bool) bool {
	var added, freed int64
	for _, c := range readers {
		for _, in := range c.Inputs[1:] {
			if in != "" && len(ix.consumers[in]) != 1 {
				return false
			}
		}
		if !hasBias(c) && !noShift {
			added += ix.constant(c.Inputs[1]).Shape[0]
		}
	}
	for _, in := range a.Inputs {
		if t := ix.constant(in); t != nil && len(ix.consumers[in]) == 1 {
			freed += canon.NumElements(t.Shape)
		}
	}
	return added <= freed
}
