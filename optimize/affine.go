package optimize

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// channelWeight is the constant weight of a producer that can absorb a
// per-output-channel affine, and where its output channels are.
type channelWeight struct {
	w *canon.Tensor
	// axis is w's output-channel axis; with groups > 1 it counts the
	// channels of one group and the axes before it run over the groups.
	axis   int
	groups int64
	// channels is the number of output channels in all.
	channels int64
	// becomesLinear: a MatMul, rewritten as a Linear with w transposed.
	becomesLinear bool
}

// affineWeight finds p's constant weight and its output channels: the
// OutputChannelAxis of the weight's role (axis 0 of a Conv's OIHW or a
// Linear's OI weight, axis 1 of a ConvTranspose's IOHW, group by group:
// output channel oc = g*(C_out/G) + j is W[g*(C_in/G):(g+1)*(C_in/G), j, ...]),
// or axis 1 of the constant (K, N) weight of a MatMul with a 2-D input,
// which becomes a Linear. It reports false for any other producer.
func affineWeight(ix *index, p *canon.Node) (channelWeight, bool) {
	if len(p.Inputs) < 2 {
		return channelWeight{}, false // no weight slot
	}
	wt := ix.constant(p.Inputs[1])
	if wt == nil {
		return channelWeight{}, false
	}
	cw := channelWeight{w: wt, groups: 1}
	if _, ok := p.Op.(*canon.MatMul); ok {
		if r, ok := rankOf(ix.g, p.Inputs[0]); !ok || r != 2 || len(wt.Shape) != 2 {
			return channelWeight{}, false
		}
		cw.axis, cw.becomesLinear = 1, true
	} else {
		specs := p.Op.Signature().Inputs
		if len(specs) < 2 {
			return channelWeight{}, false // a variadic op such as Concat
		}
		role := specs[1].Role
		if !isKernelRole(role) || !canon.LayoutFits(role, len(wt.Shape)) {
			return channelWeight{}, false
		}
		axis, perGroup, ok := canon.OutputChannelAxis(role)
		if !ok {
			return channelWeight{}, false
		}
		cw.axis = axis
		if perGroup {
			cw.groups = groupsOf(p.Op)
			if cw.groups < 1 || wt.Shape[0]%cw.groups != 0 {
				return channelWeight{}, false
			}
		}
	}
	cw.channels = wt.Shape[cw.axis] * cw.groups
	return cw, true
}

// isKernelRole reports a weight that maps input channels to output
// channels, the weights a per-output-channel scale can be folded into (a
// bias or a BatchNorm's per-channel vector has an output-channel axis but
// is not one).
func isKernelRole(r canon.Role) bool {
	switch r {
	case canon.RoleConvWeight, canon.RoleDeconvWeight, canon.RoleLinearWeight:
		return true
	}
	return false
}

// groupsOf is a convolution's Group attribute (1 for other ops).
func groupsOf(op canon.Op) int64 { return canon.GroupsOf(op) }

// convOutChannels is the number of output channels of a Conv weight, the
// size of its role's output-channel axis. Passes that rebuild Conv weights
// (regroup_conv, merge_parallel_convs) walk them in that role's layout,
// O, I/group, spatial... (canon.LayoutFor(canon.RoleConvWeight, rank)).
func convOutChannels(w *canon.Tensor) int64 {
	axis, _, _ := canon.OutputChannelAxis(canon.RoleConvWeight)
	return w.Shape[axis]
}

// slotLayout is the layout a tensor of the given rank needs in input slot
// i of op ("" for plain data).
func slotLayout(op canon.Op, i, rank int) canon.Layout {
	specs := op.Signature().Inputs
	if i >= len(specs) {
		return ""
	}
	l, _ := canon.LayoutFor(specs[i].Role, rank)
	return l
}

// scaleChannels multiplies every weight entry by the scale of its output
// channel: entry (o, j, rest) of a weight viewed as (outer, shape[axis],
// inner) belongs to channel (o / (outer/groups))·shape[axis] + j.
func scaleChannels(w []float64, shape []int64, axis int, groups int64, s []float64) []float64 {
	outer := canon.NumElements(shape[:axis])
	d := shape[axis]
	inner := canon.NumElements(shape[axis+1:])
	perGroup := outer / groups
	out := make([]float64, len(w))
	for o := int64(0); o < outer; o++ {
		ch0 := (o / perGroup) * d
		for j := int64(0); j < d; j++ {
			sc := s[ch0+j]
			start := (o*d + j) * inner
			for e := start; e < start+inner; e++ {
				out[e] = w[e] * sc
			}
		}
	}
	return out
}

// channelAffine rewrites the producer p of a value y so that it computes
// y*s[c] + t[c] for every output channel c (axis 1 of its output): the
// common core of BatchNorm folding, bias-add fusion and scale fusion. The
// node p itself is not modified: the rewritten node is returned with the
// new weight tensors it reads, or an error saying why it cannot be done.
func channelAffine(ix *index, nm *namer, p *canon.Node, cw channelWeight, s, t []float64) (*canon.Node, []*canon.Tensor, error) {
	wt := cw.w
	c := int64(len(s))
	if cw.channels != c {
		return nil, nil, fmt.Errorf("%s: weight %q shape %v has %d output channels, not %d", nodeRef(p), wt.Name, wt.Shape, cw.channels, c)
	}
	w, err := f32Values(wt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", nodeRef(p), err)
	}
	newW := scaleChannels(w, wt.Shape, cw.axis, cw.groups, s)
	if !finite(newW) {
		return nil, nil, fmt.Errorf("%s: folded weight is not finite", nodeRef(p))
	}
	nn := cloneNode(p)
	if cw.becomesLinear {
		return matMulAffine(nm, p, nn, wt, newW, t)
	}
	if op, ok := p.Op.(*canon.Linear); ok {
		return linearAffine(ix, nm, p, op, nn, wt, newW, s, t)
	}
	// The rest (Conv, ConvTranspose) have a per-output-channel bias slot:
	// scale the bias and add the shift.
	if specs := p.Op.Signature().Inputs; len(specs) < 3 || specs[2].Role != canon.RoleBias {
		return nil, nil, fmt.Errorf("%s has no per-output-channel bias to absorb a shift", nodeRef(p))
	}
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
	var added []*canon.Tensor
	if !unitScale(s) { // a shift alone leaves the weight (and its sharing) as it is
		wname := nm.fresh(wt.Name + "_folded")
		added = append(added, f32Tensor(wname, wt.Shape, slotLayout(p.Op, 1, len(wt.Shape)), newW))
		nn.Inputs[1] = wname
	}
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
		added = append(added, f32Tensor(bname, []int64{c}, slotLayout(p.Op, 2, 1), nb))
		if len(nn.Inputs) < 3 {
			nn.Inputs = append(nn.Inputs, "")
		}
		nn.Inputs[2] = bname
	}
	return nn, added, nil
}

// matMulAffine finishes the MatMul case: A·(W·s) + t with a constant (K, N)
// weight W becomes a Linear, whose weight is (W·s) transposed into the
// Linear weight layout and whose C input holds t.
func matMulAffine(nm *namer, p, nn *canon.Node, wt *canon.Tensor, newW, t []float64) (*canon.Node, []*canon.Tensor, error) {
	lin := &canon.Linear{Alpha: 1, Beta: 1}
	to := slotLayout(lin, 1, 2)
	if len(to) != 2 {
		return nil, nil, fmt.Errorf("%s: no two-axis layout for a Linear weight", nodeRef(p))
	}
	// The (K, N) weight holds the Linear weight's axes in reverse order.
	scaled := f32Tensor(nm.fresh(wt.Name+"_T"), wt.Shape, canon.Layout([]byte{to[1], to[0]}), newW)
	lw, err := canon.PermuteTensor(scaled, to)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", nodeRef(p), err)
	}
	added := []*canon.Tensor{lw}
	nn.Op = lin
	nn.Inputs = []string{p.Inputs[0], lw.Name}
	if !allZero(t) {
		bname := nm.fresh(wt.Name + "_bias")
		added = append(added, f32Tensor(bname, []int64{int64(len(t))}, slotLayout(lin, 2, 1), t))
		nn.Inputs = append(nn.Inputs, bname)
	}
	return nn, added, nil
}

// linearAffine finishes the Linear case: Y = Alpha*A·Wᵀ + Beta*C becomes
// Alpha*A·(sW)ᵀ + 1*(Beta*C*s + t), with C of N entries (or one).
func linearAffine(ix *index, nm *namer, p *canon.Node, op *canon.Linear, nn *canon.Node, wt *canon.Tensor, newW, s, t []float64) (*canon.Node, []*canon.Tensor, error) {
	c := int64(len(s))
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
	var added []*canon.Tensor
	if !unitScale(s) {
		wname := nm.fresh(wt.Name + "_folded")
		added = append(added, f32Tensor(wname, wt.Shape, slotLayout(op, 1, len(wt.Shape)), newW))
		nn.Inputs[1] = wname
	}
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
		added = append(added, f32Tensor(cname, []int64{c}, slotLayout(op, 2, 1), nc))
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

// absorbAffine replaces producer p by its rewrite and makes it define out
// (the value of the node being folded away, which is removed by the caller).
func absorbAffine(g *canon.Graph, ix *index, nm *namer, p *canon.Node, cw channelWeight, out string, s, t []float64) error {
	nn, added, err := channelAffine(ix, nm, p, cw, s, t)
	if err != nil {
		return err
	}
	nn.Outputs = []string{out}
	replaceNode(g, p, nn)
	g.Initializers = append(g.Initializers, added...)
	return nil
}
