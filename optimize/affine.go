package optimize

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// channelAffine rewrites the producer p of a value y so that it computes
// y*s[c] + t[c] for every output channel c (axis 1 of its output): the
// common core of BatchNorm folding, bias-add fusion and scale fusion. The
// node p itself is not modified: the rewritten node is returned with the
// new weight tensors it reads, or an error saying why it cannot be done.
//
// Output channels live along axis 0 of a Conv weight (OIHW), rows of a
// Linear weight (OI), columns of a MatMul weight (K, N) and, group by
// group, along axis 1 of a ConvTranspose weight (IOHW): output channel
// oc = g*(C_out/G) + j is W[g*(C_in/G):(g+1)*(C_in/G), j, ...].
func channelAffine(ix *index, nm *namer, p *canon.Node, s, t []float64) (*canon.Node, []*canon.Tensor, error) {
	if len(p.Inputs) < 2 {
		return nil, nil, fmt.Errorf("%s has no weight", nodeRef(p))
	}
	wt := ix.constant(p.Inputs[1])
	if wt == nil {
		return nil, nil, fmt.Errorf("%s: weight %q is not a constant", nodeRef(p), p.Inputs[1])
	}
	w, err := f32Values(wt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", nodeRef(p), err)
	}
	c := int64(len(s))
	nn := cloneNode(p)
	var added []*canon.Tensor
	newW := make([]float64, len(w))
	switch op := p.Op.(type) {
	case *canon.Conv:
		if len(wt.Shape) < 3 || wt.Shape[0] != c {
			return nil, nil, fmt.Errorf("%s: weight %q shape %v does not have %d output channels", nodeRef(p), wt.Name, wt.Shape, c)
		}
		per := int64(len(w)) / c
		for i := range w {
			newW[i] = w[i] * s[int64(i)/per]
		}
	case *canon.ConvTranspose:
		g := op.Group
		if len(wt.Shape) < 3 || g <= 0 || wt.Shape[0]%g != 0 || wt.Shape[1]*g != c {
			return nil, nil, fmt.Errorf("%s: weight %q shape %v with %d groups does not have %d output channels", nodeRef(p), wt.Name, wt.Shape, g, c)
		}
		cinG, coutG := wt.Shape[0]/g, wt.Shape[1]
		k := int64(len(w)) / (wt.Shape[0] * coutG)
		for i := int64(0); i < wt.Shape[0]; i++ {
			grp := i / cinG
			for j := int64(0); j < coutG; j++ {
				sc := s[grp*coutG+j]
				base := (i*coutG + j) * k
				for e := base; e < base+k; e++ {
					newW[e] = w[e] * sc
				}
			}
		}
	case *canon.Linear:
		if len(wt.Shape) != 2 || wt.Shape[0] != c {
			return nil, nil, fmt.Errorf("%s: weight %q shape %v does not have %d rows", nodeRef(p), wt.Name, wt.Shape, c)
		}
		for i := range w {
			newW[i] = w[i] * s[int64(i)/wt.Shape[1]]
		}
		return linearAffine(ix, nm, p, op, nn, wt, newW, s, t)
	case *canon.MatMul:
		// A MatMul with a constant (K, N) weight and a 2-D input becomes a
		// Linear with the transposed weight, which has a bias slot.
		if r, ok := rankOf(ix.g, p.Inputs[0]); !ok || r != 2 {
			return nil, nil, fmt.Errorf("%s: input %q is not 2-D", nodeRef(p), p.Inputs[0])
		}
		if len(wt.Shape) != 2 || wt.Shape[1] != c {
			return nil, nil, fmt.Errorf("%s: weight %q shape %v does not have %d columns", nodeRef(p), wt.Name, wt.Shape, c)
		}
		kk := wt.Shape[0]
		tw := make([]float64, len(w))
		for k := int64(0); k < kk; k++ {
			for n := int64(0); n < c; n++ {
				tw[n*kk+k] = w[k*c+n] * s[n]
			}
		}
		wname := nm.fresh(wt.Name + "_T")
		added = append(added, f32Tensor(wname, []int64{c, kk}, "OI", tw))
		nn.Op = &canon.Linear{Alpha: 1, Beta: 1}
		nn.Inputs = []string{p.Inputs[0], wname}
		if !allZero(t) {
			bname := nm.fresh(wt.Name + "_bias")
			added = append(added, f32Tensor(bname, []int64{c}, "", t))
			nn.Inputs = append(nn.Inputs, bname)
		}
		return nn, added, nil
	default:
		return nil, nil, fmt.Errorf("%s cannot absorb a per-channel affine", nodeRef(p))
	}
	if !finite(newW) {
		return nil, nil, fmt.Errorf("%s: folded weight is not finite", nodeRef(p))
	}
	// Conv and ConvTranspose: scale the bias and add the shift.
	var b []float64
	if len(p.Inputs) > 2 && p.Inputs[2] != "" {
		bt := ix.constant(p.Inputs[2])
		if bt == nil {
			return nil, nil, fmt.Errorf("%s: bias %q is not a constant", nodeRef(p), p.Inputs[2])
		}
		if b, err = f32Values(bt); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", nodeRef(p), err)
		}
		if int64(len(b)) != c {
			return nil, nil, fmt.Errorf("%s: bias %q has %d entries for %d channels", nodeRef(p), bt.Name, len(b), c)
		}
	}
	wname := nm.fresh(wt.Name + "_folded")
	layout, _ := canon.LayoutFor(weightRole(p.Op), len(wt.Shape))
	added = append(added, f32Tensor(wname, wt.Shape, layout, newW))
	nn.Inputs[1] = wname
	if b != nil || !allZero(t) {
		nb := make([]float64, c)
		for i := range nb {
			if b != nil {
				nb[i] = b[i] * s[i]
			}
			nb[i] += t[i]
		}
		if !finite(nb) {
			return nil, nil, fmt.Errorf("%s: folded bias is not finite", nodeRef(p))
		}
		base := wt.Name + "_bias"
		if b != nil {
			base = p.Inputs[2] + "_folded"
		}
		bname := nm.fresh(base)
		added = append(added, f32Tensor(bname, []int64{c}, "O", nb))
		if len(nn.Inputs) < 3 {
			nn.Inputs = append(nn.Inputs, "")
		}
		nn.Inputs[2] = bname
	}
	return nn, added, nil
}

func weightRole(op canon.Op) canon.Role {
	switch op.(type) {
	case *canon.ConvTranspose:
		return canon.RoleDeconvWeight
	case *canon.Linear:
		return canon.RoleLinearWeight
	}
	return canon.RoleConvWeight
}

// linearAffine finishes the Linear case: Y = Alpha*A·Wᵀ + Beta*C becomes
// Alpha*A·(sW)ᵀ + 1*(Beta*C*s + t), with C of N entries (or one).
func linearAffine(ix *index, nm *namer, p *canon.Node, op *canon.Linear, nn *canon.Node, wt *canon.Tensor, newW, s, t []float64) (*canon.Node, []*canon.Tensor, error) {
	c := int64(len(s))
	if !finite(newW) {
		return nil, nil, fmt.Errorf("%s: folded weight is not finite", nodeRef(p))
	}
	var cb []float64
	if len(p.Inputs) > 2 && p.Inputs[2] != "" {
		ct := ix.constant(p.Inputs[2])
		if ct == nil {
			return nil, nil, fmt.Errorf("%s: C %q is not a constant", nodeRef(p), p.Inputs[2])
		}
		v, err := f32Values(ct)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", nodeRef(p), err)
		}
		cv, ok := expandChannels(ct.Shape, v, 2, c)
		if !ok {
			return nil, nil, fmt.Errorf("%s: C %q shape %v is not per output channel", nodeRef(p), ct.Name, ct.Shape)
		}
		cb = cv
	}
	wname := nm.fresh(wt.Name + "_folded")
	added := []*canon.Tensor{f32Tensor(wname, wt.Shape, "OI", newW)}
	nn.Inputs[1] = wname
	nop := *op
	if cb != nil || !allZero(t) {
		nc := make([]float64, c)
		for i := range nc {
			if cb != nil {
				nc[i] = float64(op.Beta) * cb[i] * s[i]
			}
			nc[i] += t[i]
		}
		if !finite(nc) {
			return nil, nil, fmt.Errorf("%s: folded bias is not finite", nodeRef(p))
		}
		cname := nm.fresh(wt.Name + "_bias")
		added = append(added, f32Tensor(cname, []int64{c}, "", nc))
		if len(nn.Inputs) < 3 {
			nn.Inputs = append(nn.Inputs, "")
		}
		nn.Inputs[2] = cname
		nop.Beta = 1
	}
	nn.Op = &nop
	return nn, added, nil
}

// expandChannels checks that a constant of the given shape, broadcast
// against an output of rank r, varies only along axis 1 (with c entries or
// one), and returns its c per-channel values.
func expandChannels(shape []int64, v []float64, r int, c int64) ([]float64, bool) {
	if len(shape) > r || r < 2 {
		return nil, false
	}
	full := make([]int64, r)
	for i := range full {
		full[i] = 1
	}
	copy(full[r-len(shape):], shape)
	for i, d := range full {
		if i != 1 && d != 1 {
			return nil, false
		}
	}
	switch {
	case full[1] == c:
		return slices.Clone(v), true
	case full[1] == 1 && len(v) == 1:
		out := make([]float64, c)
		for i := range out {
			out[i] = v[0]
		}
		return out, true
	}
	return nil, false
}

// outputChannels is the number of output channels of an affine-capable
// producer, read from its weight.
func outputChannels(ix *index, p *canon.Node) (int64, bool) {
	if len(p.Inputs) < 2 {
		return 0, false
	}
	wt := ix.constant(p.Inputs[1])
	if wt == nil || len(wt.Shape) < 2 {
		return 0, false
	}
	switch op := p.Op.(type) {
	case *canon.Conv, *canon.Linear:
		return wt.Shape[0], true
	case *canon.ConvTranspose:
		return wt.Shape[1] * op.Group, op.Group > 0
	case *canon.MatMul:
		if len(wt.Shape) != 2 {
			return 0, false
		}
		return wt.Shape[1], true
	}
	return 0, false
}

// absorbAffine replaces producer p by its rewrite and makes it define out
// (the value of the node being folded away, which is removed by the caller).
func absorbAffine(g *canon.Graph, ix *index, nm *namer, p *canon.Node, out string, s, t []float64) error {
	nn, added, err := channelAffine(ix, nm, p, s, t)
	if err != nil {
		return err
	}
	nn.Outputs = []string{out}
	replaceNode(g, p, nn)
	g.Initializers = append(g.Initializers, added...)
	return nil
}
