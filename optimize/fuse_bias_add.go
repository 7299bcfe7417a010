package optimize

import "github.com/modelbridge/modelbridge/canon"

// fuseBiasAdd folds y + c (or y - c) into the bias of y's producer (Conv,
// ConvTranspose, Linear, or a constant-weight MatMul, which becomes a
// Linear) when c is a constant that varies only along the output-channel
// axis, such as (C,1,1) or (1,C,1,1) after a Conv, or (C) after a Linear.
func fuseBiasAdd(g *canon.Graph) (bool, error) {
	return fuseChannelConst(g, false)
}

// fuseChannelConst is fuse_bias_add (scale == false) and fuse_scale_mul.
func fuseChannelConst(g *canon.Graph, scale bool) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	ix := newIndex(g)
	nm := newNamer(g)
	dead := map[*canon.Node]bool{}
	for _, n := range g.Nodes {
		b, ok := n.Op.(*canon.Binary)
		if !ok {
			continue
		}
		if scale && b.Fn != canon.Mul || !scale && b.Fn != canon.Add && b.Fn != canon.Sub {
			continue
		}
		for side := 0; side < 2; side++ {
			if b.Fn == canon.Sub && side == 1 {
				break // c - y is not a bias
			}
			x, cn := n.Inputs[side], n.Inputs[1-side]
			p := ix.producer[x]
			ct := ix.constant(cn)
			if p == nil || ct == nil || dead[p] || !ix.onlyFeeds(x, n) {
				continue
			}
			xv, ok := g.Values.Lookup(x)
			if !ok || xv.DType != canon.Float32 || !xv.RankKnown || !sameStaticShape(g, x, n.Outputs[0]) {
				continue
			}
			cw, ok := affineWeight(ix, p)
			if !ok || scale && cw.becomesLinear {
				continue // a scaled MatMul gains nothing from becoming a Linear
			}
			c := cw.channels
			v, err := f32Values(ct)
			if err != nil {
				continue
			}
			per, ok := expandChannels(ct.Shape, v, len(xv.Shape), c)
			if !ok {
				continue
			}
			s, t := make([]float64, c), make([]float64, c)
			for i := range s {
				if scale {
					s[i] = per[i]
				} else {
					s[i] = 1
					t[i] = per[i]
					if b.Fn == canon.Sub {
						t[i] = -per[i]
					}
				}
			}
			others := sharedWith(ix, p, p.Inputs[1])
			if err := absorbAffine(g, ix, nm, p, cw, n.Outputs[0], s, t); err != nil {
				continue
			}
			if len(others) > 0 && !unitScale(s) {
				noteCopied(g, "fuse_scale_mul", p, cw.w, others)
			}
			dead[n] = true
			ix = newIndex(g)
			break
		}
	}
	removeNodes(g, dead)
	return len(dead) > 0, nil
}
