package optimize

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// Only group-1 convs are merged, deliberately. Convs with the same group
// count G > 1 could share one grouped conv whose weights hold each conv's
// filters group by group, but its output channels then come out
// group-interleaved (group 0 of every conv, then group 1, ...), so a Split
// can no longer hand each conv its outputs as one contiguous slice: the
// merged conv would need a channel permutation (a Gather, or a
// Reshape/Transpose/Reshape) after it, which costs a full extra pass over
// the output and usually eats the launch saved. Grouped and depthwise convs
// are left to regroup_conv.

// mergeSite is a set of Convs (in graph order) reading the same input with
// the same strides and dilations, group 1, constant f32 weights and equal
// output spatial sizes.
type mergeSite struct {
	x     string
	convs []*canon.Node
}

// mergeGeom is the merged conv's geometry: kernel size, pads, and where each
// original kernel sits inside the enlarged one.
type mergeGeom struct {
	kernel     []int64
	padsBegin  []int64
	padsEnd    []int64
	offsets    [][]int64 // per conv, per spatial axis: zeros before its kernel
	outSpatial []int64
}

// findMergeSites lists every site in g, deterministically (graph order).
func findMergeSites(g *canon.Graph, ix *index) []mergeSite {
	var sites []mergeSite
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		if _, ok := n.Op.(*canon.Conv); !ok || seen[n.Inputs[0]] {
			continue
		}
		x := n.Inputs[0]
		seen[x] = true
		var cands []*canon.Node
		for _, c := range ix.consumers[x] {
			if mergeable(g, ix, c, x) && !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
		// Partition by strides, dilations and output spatial size.
		used := make([]bool, len(cands))
		for i, a := range cands {
			if used[i] {
				continue
			}
			site := mergeSite{x: x, convs: []*canon.Node{a}}
			for j := i + 1; j < len(cands); j++ {
				if !used[j] && sameConvClass(g, a, cands[j]) {
					site.convs = append(site.convs, cands[j])
					used[j] = true
				}
			}
			if len(site.convs) >= 2 {
				if _, err := site.geometry(g, ix); err == nil {
					sites = append(sites, site)
				}
			}
		}
	}
	return sites
}

func mergeable(g *canon.Graph, ix *index, n *canon.Node, x string) bool {
	op, ok := n.Op.(*canon.Conv)
	if !ok || op.Group != 1 || n.Inputs[0] != x || n.Outputs[0] == "" {
		return false
	}
	if n.Inputs[1] == x || (len(n.Inputs) > 2 && n.Inputs[2] == x) {
		return false
	}
	w := ix.constant(n.Inputs[1])
	if w == nil || w.DType != canon.Float32 {
		return false
	}
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		b := ix.constant(n.Inputs[2])
		if b == nil || b.DType != canon.Float32 {
			return false
		}
	}
	_, ok1 := staticShape(g, x)
	_, ok2 := staticShape(g, n.Outputs[0])
	return ok1 && ok2
}

func sameConvClass(g *canon.Graph, a, b *canon.Node) bool {
	oa, ob := a.Op.(*canon.Conv), b.Op.(*canon.Conv)
	if !slices.Equal(oa.Strides, ob.Strides) || !slices.Equal(oa.Dilations, ob.Dilations) {
		return false
	}
	sa, _ := staticShape(g, a.Outputs[0])
	sb, _ := staticShape(g, b.Outputs[0])
	return len(sa) == len(sb) && len(sa) > 2 && slices.Equal(sa[2:], sb[2:]) && sa[0] == sb[0]
}

// geometry computes the merged kernel. For a kernel of size k with pad p
// placed o taps into the enlarged kernel K' >= k, output position i reads
// input i*s - P + d*(o + t) for tap t, which equals the original
// i*s - p + d*t exactly when P = p + d*o. So P is the largest pad, each
// offset is (P - p)/d (it must divide), K' covers every placed kernel, and
// the end pad is chosen so the output size is unchanged; any stride works.
func (s mergeSite) geometry(g *canon.Graph, ix *index) (*mergeGeom, error) {
	xs, _ := staticShape(g, s.x)
	ys, _ := staticShape(g, s.convs[0].Outputs[0])
	ns := len(xs) - 2
	op0 := s.convs[0].Op.(*canon.Conv)
	if ns < 1 || len(op0.Strides) != ns || len(op0.Dilations) != ns {
		return nil, fmt.Errorf("unsupported spatial rank")
	}
	m := &mergeGeom{kernel: make([]int64, ns), padsBegin: make([]int64, ns), padsEnd: make([]int64, ns),
		offsets: make([][]int64, len(s.convs)), outSpatial: slices.Clone(ys[2:])}
	for i := range s.convs {
		m.offsets[i] = make([]int64, ns)
	}
	for a := 0; a < ns; a++ {
		st, d := op0.Strides[a], op0.Dilations[a]
		if st < 1 || d < 1 {
			return nil, fmt.Errorf("bad stride or dilation")
		}
		var maxP int64
		for _, c := range s.convs {
			op := c.Op.(*canon.Conv)
			if len(op.PadsBegin) != ns || len(op.PadsEnd) != ns {
				return nil, fmt.Errorf("pads of %s", nodeRef(c))
			}
			if op.PadsBegin[a] < 0 || op.PadsEnd[a] < 0 {
				return nil, fmt.Errorf("negative pads")
			}
			maxP = max(maxP, op.PadsBegin[a])
		}
		var kk int64
		for i, c := range s.convs {
			op := c.Op.(*canon.Conv)
			w := ix.constant(c.Inputs[1])
			if len(w.Shape) != ns+2 || w.Shape[1] != xs[1] {
				return nil, fmt.Errorf("weight shape of %s", nodeRef(c))
			}
			if (maxP-op.PadsBegin[a])%d != 0 {
				return nil, fmt.Errorf("pads of %s are not aligned with dilation %d", nodeRef(c), d)
			}
			o := (maxP - op.PadsBegin[a]) / d
			m.offsets[i][a] = o
			kk = max(kk, o+w.Shape[2+a])
		}
		span := d*(kk-1) + 1
		in, out := xs[2+a], ys[2+a]
		end := max(0, (out-1)*st+span-in-maxP)
		if (in+maxP+end-span)/st+1 != out || in+maxP+end < span {
			return nil, fmt.Errorf("output size %d cannot be kept on axis %d", out, a)
		}
		m.kernel[a], m.padsBegin[a], m.padsEnd[a] = kk, maxP, end
	}
	return m, nil
}

// zerosAdded counts the zero weights and biases merging the site adds
// (kernels enlarged to the merged size, biases for convs without one); -1
// when the site cannot be merged.
func (s mergeSite) zerosAdded(g *canon.Graph, ix *index) int64 {
	geo, err := s.geometry(g, ix)
	if err != nil {
		return -1
	}
	var zeros, withBias int64
	for _, c := range s.convs {
		w := ix.constant(c.Inputs[1])
		zeros += w.Shape[0]*w.Shape[1]*canon.NumElements(geo.kernel) - canon.NumElements(w.Shape)
		if len(c.Inputs) > 2 && c.Inputs[2] != "" {
			withBias++
		}
	}
	if withBias > 0 {
		for _, c := range s.convs {
			if len(c.Inputs) <= 2 || c.Inputs[2] == "" {
				zeros += ix.constant(c.Inputs[1]).Shape[0]
			}
		}
	}
	return zeros
}

// applyMerge rewrites a site into one conv and a Split whose outputs are the
// original conv outputs. Existing node structs are not modified (the search
// shares them between candidate graphs). It returns the new conv's output
// type so that callers can record it.
func applyMerge(g *canon.Graph, ix *index, nm *namer, s mergeSite, mk weightMaker) (canon.ValueInfo, error) {
	geo, err := s.geometry(g, ix)
	if err != nil {
		return canon.ValueInfo{}, err
	}
	xs, _ := staticShape(g, s.x)
	ns := len(xs) - 2
	cin := xs[1]
	var total int64
	sizes := make([]int64, len(s.convs))
	hasBias := false
	for i, c := range s.convs {
		sizes[i] = convOutChannels(ix.constant(c.Inputs[1]))
		total += sizes[i]
		if len(c.Inputs) > 2 && c.Inputs[2] != "" {
			hasBias = true
		}
	}
	wshape := append([]int64{total, cin}, geo.kernel...)
	var srcs []*canon.Tensor
	for _, c := range s.convs {
		srcs = append(srcs, ix.constant(c.Inputs[1]))
		if len(c.Inputs) > 2 && c.Inputs[2] != "" {
			srcs = append(srcs, ix.constant(c.Inputs[2]))
		} else {
			srcs = append(srcs, nil)
		}
	}
	fillW := func() ([]float64, error) {
		wout := make([]float64, canon.NumElements(wshape))
		kstr := rowMajorStrides(wshape)
		var oc0 int64 // the merged weight stacks the convs' output channels
		for i := range s.convs {
			wt := srcs[2*i]
			w, err := f32Values(wt)
			if err != nil {
				return nil, err
			}
			src := rowMajorStrides(wt.Shape)
			idx := make([]int64, len(wt.Shape))
			for f := range w {
				rem := int64(f)
				for a := range idx {
					idx[a] = rem / src[a]
					rem %= src[a]
				}
				dst := (oc0+idx[0])*kstr[0] + idx[1]*kstr[1]
				for a := 0; a < ns; a++ {
					dst += (idx[2+a] + geo.offsets[i][a]) * kstr[2+a]
				}
				wout[dst] = w[f]
			}
			oc0 += sizes[i]
		}
		return wout, nil
	}
	fillB := func() ([]float64, error) {
		bout := make([]float64, total)
		var oc0 int64
		for i, c := range s.convs {
			if bt := srcs[2*i+1]; bt != nil {
				b, err := f32Values(bt)
				if err != nil || int64(len(b)) != sizes[i] {
					return nil, fmt.Errorf("bias of %s", nodeRef(c))
				}
				copy(bout[oc0:], b)
			}
			oc0 += sizes[i]
		}
		return bout, nil
	}
	first := s.convs[0]
	op0 := first.Op.(*canon.Conv)
	tag := fmt.Sprintf("merge %v %v", geo.kernel, geo.offsets)
	wt, err := mk(nm.fresh(first.Name+"_merged_W"), wshape, slotLayout(op0, 1, len(wshape)), srcs, tag+" W", fillW)
	if err != nil {
		return canon.ValueInfo{}, err
	}
	g.Initializers = append(g.Initializers, wt)
	inputs := []string{s.x, wt.Name}
	if hasBias {
		bt, err := mk(nm.fresh(first.Name+"_merged_B"), []int64{total}, slotLayout(op0, 2, 1), srcs, tag+" B", fillB)
		if err != nil {
			return canon.ValueInfo{}, err
		}
		g.Initializers = append(g.Initializers, bt)
		inputs = append(inputs, bt.Name)
	}
	mid := nm.fresh(first.Outputs[0] + "_merged")
	conv := &canon.Node{
		Name: nm.fresh(first.Name + "_merged"),
		Op: &canon.Conv{Strides: slices.Clone(op0.Strides), Dilations: slices.Clone(op0.Dilations),
			PadsBegin: geo.padsBegin, PadsEnd: geo.padsEnd, Group: 1},
		Inputs:  inputs,
		Outputs: []string{mid},
	}
	split := &canon.Node{Name: nm.fresh(first.Name + "_split"), Op: &canon.Split{Axis: 1, Sizes: sizes}, Inputs: []string{mid}}
	for _, c := range s.convs {
		split.Outputs = append(split.Outputs, c.Outputs[0])
	}
	// The merged conv goes where the first conv was: the input is defined
	// before it and every reader of a conv output comes after it.
	dead := map[*canon.Node]bool{}
	for _, c := range s.convs[1:] {
		dead[c] = true
	}
	var nodes []*canon.Node
	for _, n := range g.Nodes {
		switch {
		case n == first:
			nodes = append(nodes, conv, split)
		case !dead[n]:
			nodes = append(nodes, n)
		}
	}
	g.Nodes = nodes
	ys, _ := staticShape(g, first.Outputs[0])
	yv := g.Values.Get(first.Outputs[0])
	return canon.ValueInfo{Name: mid, DType: yv.DType, Shape: canon.DimsOf(append([]int64{ys[0], total}, geo.outSpatial...)...), RankKnown: true}, nil
}

func rowMajorStrides(s []int64) []int64 {
	st := make([]int64, len(s))
	acc := int64(1)
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// MergeParallelConvsPass returns merge_parallel_convs. With force (for tests
// and experiments) every site is merged, zero-padded ones too. Unless force is set,
// a site is merged only when the cost model says the merged conv and Split
// are cheaper than the separate convs (enlarging a 1x1 kernel to 3x3 costs
// more arithmetic than the launch it saves, except on small tensors).
func MergeParallelConvsPass(force bool) Pass {
	return mergeConvsPass(force, !force)
}

// mergeConvsPass is merge_parallel_convs; with exactOnly it merges only
// sites whose merged weight holds no added zero (same kernel and pads, and
// every conv or none with a bias), so the merge never grows the model.
func mergeConvsPass(force, exactOnly bool) Pass {
	return Pass{
		Name: "merge_parallel_convs",
		Doc:  "merge convs that share an input into one conv + Split",
		Run: func(g *canon.Graph) (bool, error) {
			if err := g.Infer(); err != nil {
				return false, err
			}
			changed := false
			for {
				ix := newIndex(g)
				nm := newNamer(g)
				done := false
				for _, s := range findMergeSites(g, ix) {
					if exactOnly && s.zerosAdded(g, ix) != 0 {
						continue
					}
					if !force && !mergePays(g, ix, s) {
						continue
					}
					info, err := applyMerge(g, ix, nm, s, eagerWeight)
					if err != nil {
						continue
					}
					g.Values.Set(info.Name, info)
					changed, done = true, true
					break // sites overlap in the index: recompute
				}
				if !done {
					return changed, nil
				}
			}
		},
	}
}

// mergePays compares the modelled time of the site's convs with that of the
// merged conv and Split, on a scratch copy.
func mergePays(g *canon.Graph, ix *index, s mergeSite) bool {
	info := mapInfo(g.Values)
	before := 0.0
	for _, c := range s.convs {
		before += nodeCost(c, info).Seconds(DefaultMachine)
	}
	scratch := shallowClone(g)
	scratch.Nodes = slices.Clone(s.convs)
	scratch.Initializers = nil
	nm := &namer{used: map[string]bool{}}
	nm.addGraph(g)
	mi, err := applyMerge(scratch, ix, nm, s, shapeOnlyWeight)
	if err != nil {
		return false
	}
	overlay := overlayInfo(g.Values, scratch.Initializers, mi)
	after := 0.0
	for _, n := range scratch.Nodes {
		after += nodeCost(n, overlay).Seconds(DefaultMachine)
	}
	return after < before
}

// overlayInfo looks values up in extra tensors and infos first, then vals.
func overlayInfo(vals *canon.ValueTable, ts []*canon.Tensor, extra ...canon.ValueInfo) infoFunc {
	return func(name string) (canon.ValueInfo, bool) {
		for _, t := range ts {
			if t.Name == name {
				return canon.ValueInfo{Name: name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true}, true
			}
		}
		for _, e := range extra {
			if e.Name == name {
				return e, true
			}
		}
		return vals.Lookup(name)
	}
}
