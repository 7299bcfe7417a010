package optimize

import (
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// foldThroughPool lets a per-channel affine that follows a pooling fold into
// the Conv, ConvTranspose or Linear before the pooling:
//
//	Conv → MaxPool → BatchNorm   becomes   Conv' → MaxPool
//
// The affine y = s·x + t commutes with the pooling exactly when
//   - MaxPool, GlobalMaxPool: every s > 0 (max is monotone per channel;
//     padding is -inf, which the affine maps to -inf);
//   - AveragePool, GlobalAveragePool: always, except that t must be 0 for
//     an AveragePool that counts padded zeros (count_include_pad with pads),
//     since the zeros are not shifted.
//
// The affine is moved in front of the pooling only when the fold that
// follows removes it (checked on a copy), so the graph never does more
// work. The moved op keeps its output name.
func foldThroughPool(g *canon.Graph) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	changed := false
	for {
		done := false
		ix := newIndex(g)
		for i, pool := range g.Nodes {
			kind, ok := poolKind(pool)
			if !ok {
				continue
			}
			x, y := pool.Inputs[0], pool.Outputs[0]
			p := ix.producer[x]
			if p == nil || !ix.onlyFeeds(x, pool) || ix.isOutput[y] || len(ix.consumers[y]) != 1 {
				continue
			}
			if _, ok := affineWeight(ix, p); !ok {
				continue
			}
			a := ix.consumers[y][0]
			s, t, ok := channelAffineOf(g, ix, a, y)
			if !ok || !commutes(kind, pool.Op, s, t) {
				continue
			}
			j := slices.Index(g.Nodes, a)
			if j < 0 {
				continue
			}
			if trial, ok := swapAndFold(g, i, j); ok {
				g.Nodes, g.Initializers, g.Values = trial.Nodes, trial.Initializers, trial.Values
				changed, done = true, true
				break
			}
		}
		if !done {
			return changed, nil
		}
	}
}

// poolKind names the poolings an affine commutes with.
func poolKind(n *canon.Node) (string, bool) {
	switch op := n.Op.(type) {
	case *canon.MaxPool:
		if len(n.Outputs) > 1 && n.Outputs[1] != "" {
			return "", false // indices are used
		}
		return "max", true
	case *canon.GlobalMaxPool:
		return "max", true
	case *canon.AveragePool:
		if op.CountIncludePad && (slices.ContainsFunc(op.PadsBegin, nonZero) || slices.ContainsFunc(op.PadsEnd, nonZero)) {
			return "avg_padded", true
		}
		return "avg", true
	case *canon.GlobalAveragePool:
		return "avg", true
	}
	return "", false
}

func nonZero(v int64) bool { return v != 0 }

func commutes(kind string, _ canon.Op, s, t []float64) bool {
	switch kind {
	case "max":
		return !slices.ContainsFunc(s, func(v float64) bool { return !(v > 0) })
	case "avg":
		return true
	case "avg_padded":
		return !slices.ContainsFunc(t, nonZero64)
	}
	return false
}

func nonZero64(v float64) bool { return v != 0 }

// channelAffineOf reads node a as y·s + t per channel of its input y (a
// BatchNorm with constant statistics, or a Mul, Add, or y - c by a
// per-channel constant), or reports false.
func channelAffineOf(g *canon.Graph, ix *index, a *canon.Node, y string) (s, t []float64, ok bool) {
	yv, ok := g.Values.Lookup(y)
	if !ok || yv.DType != canon.Float32 || !yv.RankKnown || len(yv.Shape) < 2 {
		return nil, nil, false
	}
	cdim := yv.Shape[1]
	if !cdim.Known() {
		return nil, nil, false
	}
	c := cdim.Size
	switch op := a.Op.(type) {
	case *canon.BatchNorm:
		if a.Inputs[0] != y {
			return nil, nil, false
		}
		var p [4][]float64
		for i := range p {
			ct := ix.constant(a.Inputs[1+i])
			if ct == nil {
				return nil, nil, false
			}
			v, err := f32Values(ct)
			if err != nil || int64(len(v)) != c {
				return nil, nil, false
			}
			p[i] = v
		}
		s, t = make([]float64, c), make([]float64, c)
		for i := range s {
			s[i] = p[0][i] / math.Sqrt(p[3][i]+float64(op.Epsilon))
			t[i] = p[1][i] - p[2][i]*s[i]
		}
		return s, t, finite(s) && finite(t)
	case *canon.Binary:
		side := slices.Index(a.Inputs, y)
		if side < 0 || a.Inputs[1-side] == y || op.Fn == canon.Sub && side != 0 {
			return nil, nil, false
		}
		ct := ix.constant(a.Inputs[1-side])
		if ct == nil || !sameStaticShape(g, y, a.Outputs[0]) {
			return nil, nil, false
		}
		v, err := f32Values(ct)
		if err != nil {
			return nil, nil, false
		}
		per, ok := expandChannels(ct.Shape, v, len(yv.Shape), c)
		if !ok {
			return nil, nil, false
		}
		s, t = make([]float64, c), make([]float64, c)
		for i := range s {
			switch op.Fn {
			case canon.Mul:
				s[i] = per[i]
			case canon.Add:
				s[i], t[i] = 1, per[i]
			case canon.Sub:
				s[i], t[i] = 1, -per[i]
			default:
				return nil, nil, false
			}
		}
		return s, t, true
	}
	return nil, nil, false
}

// swapAndFold moves node j (the affine) in front of node i (the pooling) on
// a copy of g and runs the folds; it returns the copy when the affine is
// gone from it.
func swapAndFold(g *canon.Graph, i, j int) (*canon.Graph, bool) {
	c := Clone(g)
	pool, a := c.Nodes[i], c.Nodes[j]
	x, y, z := pool.Inputs[0], pool.Outputs[0], a.Outputs[0]
	tmp := newNamer(c).fresh(y + "_affine")
	na, np := cloneNode(a), cloneNode(pool)
	for k, in := range na.Inputs {
		if in == y {
			na.Inputs[k] = x
		}
	}
	na.Outputs = []string{tmp}
	np.Inputs[0] = tmp
	np.Outputs = slices.Clone(pool.Outputs)
	np.Outputs[0] = z
	var nodes []*canon.Node
	for k, n := range c.Nodes {
		switch k {
		case i:
		case j:
			nodes = append(nodes, na, np)
		default:
			nodes = append(nodes, n)
		}
	}
	c.Nodes = nodes
	c.Values = nil
	for _, fold := range []func(*canon.Graph) (bool, error){foldBN, fuseScaleMul, fuseBiasAdd} {
		if _, err := fold(c); err != nil {
			return nil, false
		}
	}
	if slices.Contains(c.Nodes, na) {
		return nil, false
	}
	if c.Validate() != nil {
		return nil, false
	}
	return c, true
}
