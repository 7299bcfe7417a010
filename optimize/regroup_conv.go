package optimize

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// regroupSite is a grouped conv and a factor f dividing its group count G:
// the rewrite uses G/f groups (f = G: a dense conv).
type regroupSite struct {
	conv   *canon.Node
	factor int64
}

// findRegroupSites lists every (conv, factor) pair, in graph order and
// increasing factor.
func findRegroupSites(g *canon.Graph, ix *index) []regroupSite {
	var out []regroupSite
	for _, n := range g.Nodes {
		op, ok := n.Op.(*canon.Conv)
		if !ok || op.Group <= 1 {
			continue
		}
		w := ix.constant(n.Inputs[1])
		if w == nil || w.DType != canon.Float32 || convOutChannels(w)%op.Group != 0 {
			continue
		}
		for f := int64(2); f <= op.Group; f++ {
			if op.Group%f == 0 {
				out = append(out, regroupSite{conv: n, factor: f})
			}
		}
	}
	return out
}

// regroup builds the rewritten conv (a new node; the old one is not
// modified) and its weight. With G groups, output channel oc belongs to old
// group g = oc / (O/G) and reads input channels g*(C/G) + ci. In the new
// conv with G/f groups it belongs to group g/f, whose input slice starts at
// (g/f)*f*(C/G), so weight column ci moves to (g%f)*(C/G) + ci; every other
// column of the widened weight is zero, so the result is unchanged.
func regroup(ix *index, nm *namer, s regroupSite, mk weightMaker) (*canon.Node, *canon.Tensor, error) {
	n := s.conv
	op := n.Op.(*canon.Conv)
	wt := ix.constant(n.Inputs[1])
	if wt == nil {
		return nil, nil, fmt.Errorf("%s: weight is not constant", nodeRef(n))
	}
	G, f := op.Group, s.factor
	if f < 1 || G%f != 0 {
		return nil, nil, fmt.Errorf("%s: factor %d does not divide %d groups", nodeRef(n), f, G)
	}
	if wt.DType != canon.Float32 {
		return nil, nil, fmt.Errorf("%s: weight %q is %s, only f32 weights are rewritten", nodeRef(n), wt.Name, wt.DType)
	}
	O, cg := convOutChannels(wt), wt.Shape[1]
	if O%G != 0 {
		return nil, nil, fmt.Errorf("%s: %d output channels do not split into %d groups", nodeRef(n), O, G)
	}
	k := canon.NumElements(wt.Shape[2:])
	og := O / G
	ncg := cg * f
	shape := append([]int64{O, ncg}, wt.Shape[2:]...)
	fill := func() ([]float64, error) {
		w, err := f32Values(wt)
		if err != nil {
			return nil, err
		}
		nw := make([]float64, O*ncg*k)
		for oc := int64(0); oc < O; oc++ {
			col0 := ((oc / og) % f) * cg
			for ci := int64(0); ci < cg; ci++ {
				copy(nw[(oc*ncg+col0+ci)*k:(oc*ncg+col0+ci+1)*k], w[(oc*cg+ci)*k:(oc*cg+ci+1)*k])
			}
		}
		return nw, nil
	}
	t, err := mk(nm.fresh(fmt.Sprintf("%s_g%d", wt.Name, G/f)), shape, slotLayout(op, 1, len(shape)),
		[]*canon.Tensor{wt}, fmt.Sprintf("regroup %d/%d", G, f), fill)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", nodeRef(n), err)
	}
	nn := cloneNode(n)
	nop := *op
	nop.Group = G / f
	nop.Strides, nop.Dilations = slices.Clone(op.Strides), slices.Clone(op.Dilations)
	nop.PadsBegin, nop.PadsEnd = slices.Clone(op.PadsBegin), slices.Clone(op.PadsEnd)
	nn.Op = &nop
	nn.Inputs[1] = t.Name
	return nn, t, nil
}

// RegroupConvPass returns regroup_conv. With factor 0 it picks, per conv,
// the factor the cost model likes best (and leaves the conv alone when
// none pays). With force, it applies factor (or, if factor is 0, makes the
// conv dense) whatever the cost: for tests and experiments.
func RegroupConvPass(factor int64, force bool) Pass {
	return Pass{
		Name: "regroup_conv",
		Doc:  "rewrite grouped convs with fewer groups where it pays",
		Run: func(g *canon.Graph) (bool, error) {
			if err := g.Infer(); err != nil {
				return false, err
			}
			ix := newIndex(g)
			nm := newNamer(g)
			info := mapInfo(g.Values)
			best := map[*canon.Node]regroupSite{}
			bestGain := map[*canon.Node]float64{}
			var order []*canon.Node
			for _, s := range findRegroupSites(g, ix) {
				G := s.conv.Op.(*canon.Conv).Group
				if force {
					want := factor
					if want == 0 {
						want = G
					}
					if s.factor == want {
						best[s.conv] = s
						order = append(order, s.conv)
					}
					continue
				}
				if factor != 0 && s.factor != factor {
					continue
				}
				nn, t, err := regroup(ix, nm, s, shapeOnlyWeight)
				if err != nil {
					continue
				}
				before := nodeCost(s.conv, info).Seconds(DefaultMachine)
				after := nodeCost(nn, overlayInfo(g.Values, []*canon.Tensor{t})).Seconds(DefaultMachine)
				if gain := before - after; gain > 0 && gain > bestGain[s.conv] {
					if _, seen := best[s.conv]; !seen {
						order = append(order, s.conv)
					}
					best[s.conv], bestGain[s.conv] = s, gain
				}
			}
			for _, c := range order {
				nn, t, err := regroup(ix, nm, best[c], eagerWeight)
				if err != nil {
					return false, err
				}
				replaceNode(g, c, nn)
				g.Initializers = append(g.Initializers, t)
			}
			return len(order) > 0, nil
		},
	}
}
