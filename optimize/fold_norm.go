package optimize

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// foldIntoNorm removes an Add (x + c, c + x, x - c) or a Mul (x·s, s·x) by
// a uniform constant in front of a normalization, where that is exact:
//
//   - LayerNormalization, InstanceNormalization, GroupNormalization and
//     MeanVarianceNormalization subtract the mean, so a constant added to
//     every element cancels;
//   - LayerNormalization, InstanceNormalization, GroupNormalization and
//     RMSNormalization of s·x are sign(s)·Norm(x) with epsilon/s² for
//     epsilon (the statistics scale by s and s²), so the Mul goes, the
//     epsilon is rescaled, and for s < 0 the constant scale is negated.
//
// An added constant that varies only along axes the op does not normalize
// over (a per-channel bias in front of InstanceNormalization, say) cancels
// too. MeanVarianceNormalization's epsilon is fixed, so a Mul stays in
// front of it, and a per-channel scale (a BatchNorm's) changes each
// channel's epsilon differently, which the one-epsilon ops cannot say.
func foldIntoNorm(g *canon.Graph) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	changed := false
	for {
		ix := newIndex(g)
		done := false
		for _, n := range g.Nodes {
			if foldOne(g, ix, n) {
				changed, done = true, true
				break
			}
		}
		if !done {
			return changed, nil
		}
		if err := g.Infer(); err != nil {
			return changed, err
		}
	}
}

// uniformScalar is the one value of a constant whose elements are all
// equal, and whose broadcast against other leaves other's shape.
func uniformScalar(g *canon.Graph, ix *index, c, other string) (float64, bool) {
	t := ix.constant(c)
	if t == nil || t.DType != canon.Float32 {
		return 0, false
	}
	v, err := f32Values(t)
	if err != nil || len(v) == 0 {
		return 0, false
	}
	for _, e := range v[1:] {
		if e != v[0] {
			return 0, false
		}
	}
	os, ok := staticShape(g, other)
	if !ok || len(t.Shape) > len(os) {
		return 0, false
	}
	for i, d := range t.Shape {
		if d != 1 && d != os[len(os)-len(t.Shape)+i] {
			return 0, false
		}
	}
	return v[0], true
}

func foldOne(g *canon.Graph, ix *index, n *canon.Node) bool {
	var eps float32
	centred, scalable := false, false
	switch op := n.Op.(type) {
	case *canon.LayerNorm:
		for _, o := range n.Outputs[1:] {
			if o != "" {
				return false // Mean and InvStdDev would change
			}
		}
		eps, centred, scalable = op.Epsilon, true, true
	case *canon.InstanceNorm:
		eps, centred, scalable = op.Epsilon, true, true
	case *canon.GroupNorm:
		eps, centred, scalable = op.Epsilon, true, true
	case *canon.RMSNorm:
		eps, scalable = op.Epsilon, true
	case *canon.MeanVarNorm:
		centred = true
	default:
		return false
	}
	x := n.Inputs[0]
	p := ix.producer[x]
	if p == nil || !ix.onlyFeeds(x, n) || len(p.Inputs) != 2 {
		return false
	}
	if v, ok := g.Values.Lookup(x); !ok || v.DType != canon.Float32 {
		return false
	}
	bin, ok := p.Op.(*canon.Binary)
	if !ok {
		return false
	}
	a, b := p.Inputs[0], p.Inputs[1]
	var keep string
	var c float64
	switch {
	case bin.Fn == canon.Add || bin.Fn == canon.Mul:
		if v, ok := uniformScalar(g, ix, b, a); ok {
			keep, c = a, v
		} else if v, ok := uniformScalar(g, ix, a, b); ok {
			keep, c = b, v
		}
	case bin.Fn == canon.Sub:
		if v, ok := uniformScalar(g, ix, b, a); ok {
			keep, c = a, -v
		}
	}
	if keep == "" && centred && (bin.Fn == canon.Add || bin.Fn == canon.Sub) {
		// A constant that varies only along axes the op does not
		// normalize over is one value per normalized group: it cancels.
		switch {
		case constantPerGroup(g, ix, n.Op, b, a):
			keep = a
		case bin.Fn == canon.Add && constantPerGroup(g, ix, n.Op, a, b):
			keep = b
		}
	}
	if keep == "" {
		return false
	}
	ins := append([]string{keep}, n.Inputs[1:]...)
	var nop canon.Op
	switch bin.Fn {
	case canon.Add, canon.Sub:
		if !centred || math.IsInf(c, 0) || math.IsNaN(c) {
			return false
		}
		nop = n.Op
	case canon.Mul:
		if !scalable || c == 0 || math.IsInf(c, 0) || math.IsNaN(c) {
			return false
		}
		e := float64(eps) / (c * c)
		if ne := float32(e); (eps > 0 && ne == 0) || math.IsInf(float64(ne), 0) {
			return false // the new epsilon would round to 0 or overflow
		}
		if c < 0 {
			neg, ok := negated(g, ix, n.Inputs[1])
			if !ok {
				return false
			}
			ins[1] = neg
		}
		nop = withEpsilon(n.Op, float32(e))
	}
	replaceNode(g, n, &canon.Node{Name: n.Name, Op: nop, Inputs: ins, Outputs: append([]string{}, n.Outputs...)})
	removeNodes(g, map[*canon.Node]bool{p: true})
	return true
}

// withEpsilon copies a normalization op with another epsilon.
func withEpsilon(op canon.Op, eps float32) canon.Op {
	switch o := op.(type) {
	case *canon.LayerNorm:
		c := *o
		c.Epsilon = eps
		return &c
	case *canon.InstanceNorm:
		c := *o
		c.Epsilon = eps
		return &c
	case *canon.GroupNorm:
		c := *o
		c.Epsilon = eps
		return &c
	case *canon.RMSNorm:
		c := *o
		c.Epsilon = eps
		return &c
	}
	return op
}

// negated adds -t for the constant f32 scale t and returns its name.
func negated(g *canon.Graph, ix *index, name string) (string, bool) {
	t := ix.constant(name)
	if t == nil {
		return "", false
	}
	v, err := f32Values(t)
	if err != nil {
		return "", false
	}
	for i := range v {
		v[i] = -v[i]
	}
	nt := f32Tensor(newNamer(g).fresh(name+"_negated"), t.Shape, t.Layout, v)
	g.Initializers = append(g.Initializers, nt)
	return nt.Name, true
}

// constantPerGroup reports whether c is a finite f32 constant that
// broadcasts against other without changing its shape and has size 1 on
// every axis op normalizes over (for GroupNormalization, on the channel
// axis too), so that it adds one value to each normalized group.
func constantPerGroup(g *canon.Graph, ix *index, op canon.Op, c, other string) bool {
	t := ix.constant(c)
	if t == nil || t.DType != canon.Float32 {
		return false
	}
	v, err := f32Values(t)
	if err != nil || !finite(v) {
		return false
	}
	os, ok := staticShape(g, other)
	r := len(os)
	if !ok || len(t.Shape) > r {
		return false
	}
	dim := func(i int) int64 { // t's size on axis i of other
		if k := i - (r - len(t.Shape)); k >= 0 {
			return t.Shape[k]
		}
		return 1
	}
	for i := 0; i < r; i++ {
		if d := dim(i); d != 1 && d != os[i] {
			return false
		}
	}
	var axes []int64
	switch o := op.(type) {
	case *canon.LayerNorm:
		a := o.Axis
		if a < 0 {
			a += int64(r)
		}
		axes = canon.NormalizedAxes(int(a), r)
	case *canon.InstanceNorm:
		axes = canon.NormalizedAxes(2, r)
	case *canon.GroupNorm:
		axes = canon.NormalizedAxes(1, r)
	case *canon.MeanVarNorm:
		axes = o.Axes
	default:
		return false
	}
	for _, a := range axes {
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || int(a) >= r || dim(int(a)) != 1 {
			return false
		}
	}
	return true
}
