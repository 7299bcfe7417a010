package optimize

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// foldBN folds a BatchNormalization into the Conv, ConvTranspose, Linear or
// constant-weight MatMul that produces its input:
//
//	s = Scale / sqrt(Var + Epsilon),  W' = W·s (per output channel),
//	b' = b·s + Bias - Mean·s
//
// computed in float64 with the model's own epsilon and rounded to float32
// once. The producer's output must feed the BatchNorm alone.
func foldBN(g *canon.Graph) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	ix := newIndex(g)
	nm := newNamer(g)
	dead := map[*canon.Node]bool{}
	for _, n := range g.Nodes {
		bn, ok := n.Op.(*canon.BatchNorm)
		if !ok {
			continue
		}
		x := n.Inputs[0]
		p := ix.producer[x]
		if p == nil || dead[p] || !ix.onlyFeeds(x, n) {
			continue
		}
		if v, ok := g.Values.Lookup(x); !ok || v.DType != canon.Float32 {
			continue
		}
		cw, ok := affineWeight(ix, p)
		if !ok {
			continue
		}
		c := cw.channels
		var params [4][]float64
		good := true
		for i := range params {
			t := ix.constant(n.Inputs[1+i])
			if t == nil {
				good = false
				break
			}
			v, err := f32Values(t)
			if err != nil || int64(len(v)) != c {
				good = false
				break
			}
			params[i] = v
		}
		if !good {
			continue
		}
		gamma, beta, mean, variance := params[0], params[1], params[2], params[3]
		s := make([]float64, c)
		t := make([]float64, c)
		eps := float64(bn.Epsilon)
		for i := range s {
			s[i] = gamma[i] / math.Sqrt(variance[i]+eps)
			t[i] = beta[i] - mean[i]*s[i]
		}
		if !finite(s) || !finite(t) {
			continue // a negative variance: leave the model as it is
		}
		others := sharedWith(ix, p, p.Inputs[1])
		if err := absorbAffine(g, ix, nm, p, cw, n.Outputs[0], s, t); err != nil {
			continue // not foldable (non-constant or non-f32 weight): keep the BatchNorm
		}
		if len(others) > 0 {
			noteCopied(g, "fold_bn", p, cw.w, others)
		}
		dead[n] = true
		ix = newIndex(g)
	}
	removeNodes(g, dead)
	return len(dead) > 0, nil
}
