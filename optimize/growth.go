package optimize

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// Growth rewrites trade arithmetic or size for fewer kernel launches:
// regrouping a grouped conv (block-diagonal zero-filled weights) and merging
// convs of different kernel sizes (smaller kernels enlarged with zeros).
// They never run in the default pipeline. With --allow-growth or --search
// each candidate the cost model finds promising is timed in the target, and
// kept only when the whole graph is measurably faster.
const (
	growthRegroup = "regroup_conv"
	growthMerge   = "merge_parallel_convs_padded"
	growthSearch  = "search"
)

func isGrowthRewrite(name string) bool {
	return name == growthRegroup || name == growthMerge
}

// GrowthRewrites describes the rewrites that add zeros or FLOPs.
func GrowthRewrites() []Pass {
	return []Pass{
		{Name: growthRegroup, Doc: "rewrite a grouped conv with G/f groups: its weight grows f times, the added entries zero (depthwise [C,1,k,k] to [C,f,k,k]); also every conv of one group count at once"},
		{Name: growthMerge, Doc: "merge group-1 convs sharing an input whose kernels or biases differ into one conv + Split, enlarging smaller kernels with zeros"},
	}
}

// GrowthRewrite reports one growth candidate that was timed in the target
// (kept or reverted), with what it adds.
type GrowthRewrite struct {
	Rewrite string `json:"rewrite"`
	Detail  string `json:"detail"`
	// Params counts weight elements; ZerosAdded = ParamsAfter - ParamsBefore.
	ParamsBefore int64   `json:"params_before"`
	ParamsAfter  int64   `json:"params_after"`
	ZerosAdded   int64   `json:"zeros_added"`
	FLOPsBefore  float64 `json:"flops_before"`
	FLOPsAfter   float64 `json:"flops_after"`
	// ModelledBeforeMs and ModelledAfterMs are the cost model's view
	// (used only to choose what to measure).
	ModelledBeforeMs float64    `json:"modelled_before_ms"`
	ModelledAfterMs  float64    `json:"modelled_after_ms"`
	Measured         Comparison `json:"measured"`
	Kept             bool       `json:"kept"`
}

// GrowthStats describes the growth stage.
type GrowthStats struct {
	Target string `json:"target"`
	// Candidates the model found promising, and how many were timed.
	Candidates int             `json:"candidates"`
	Measured   int             `json:"measured"`
	Rewrites   []GrowthRewrite `json:"rewrites"`
}

type growthCand struct {
	rewrite, detail string
	// build rewrites a copy of the current graph, making new weights with
	// mk: shape-only ones to price the candidate, real ones to time it.
	build func(mk weightMaker) (*canon.Graph, error)
	g     *canon.Graph // set when built with real weights
	cost  CostReport
}

// ParamCount counts the floating-point elements of g's initializers and
// Constant nodes: the model's parameters (integer tensors are shapes and
// indices, which constant folding of shape arithmetic may add a few of).
func ParamCount(g *canon.Graph) int64 {
	var n int64
	count := func(t *canon.Tensor) {
		if t != nil && t.DType.IsFloat() {
			n += canon.NumElements(t.Shape)
		}
	}
	own := paramUnique(g)
	for _, t := range g.Initializers {
		if own(t) { // a shared weight counts once
			count(t)
		}
	}
	for _, nd := range g.Nodes {
		if c, ok := nd.Op.(*canon.Constant); ok {
			count(c.Value)
		}
	}
	return n
}

// growthCandidates lists every single growth rewrite of g (one regroup per
// conv and factor, every conv of one group count regrouped by one factor,
// each zero-padded merge site); each is built on a copy of g on demand.
func growthCandidates(g *canon.Graph) ([]growthCand, error) {
	var out []growthCand
	probe := Clone(g)
	if err := probe.Infer(); err != nil {
		return nil, err
	}
	ix := newIndex(probe)
	sites := findRegroupSites(probe, ix)
	type key struct{ G, f int64 }
	byKey := map[key][]int{}
	var keys []key
	for i, s := range sites {
		op := s.conv.Op.(*canon.Conv)
		w := ix.constant(s.conv.Inputs[1])
		k := key{op.Group, s.factor}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
		ns := slices.Clone(w.Shape)
		ns[1] *= s.factor
		idx := []int{i}
		out = append(out, growthCand{rewrite: growthRegroup,
			detail: fmt.Sprintf("%s: group %d -> %d, weight %v -> %v", nodeRef(s.conv), op.Group, op.Group/s.factor, w.Shape, ns),
			build:  func(mk weightMaker) (*canon.Graph, error) { return applyRegroups(g, idx, mk) }})
	}
	for _, k := range keys {
		if idx := byKey[k]; len(idx) > 1 {
			out = append(out, growthCand{rewrite: growthRegroup,
				detail: fmt.Sprintf("all %d convs with %d groups: group %d -> %d", len(idx), k.G, k.G, k.G/k.f),
				build:  func(mk weightMaker) (*canon.Graph, error) { return applyRegroups(g, idx, mk) }})
		}
	}
	for i, s := range findMergeSites(probe, ix) {
		if s.zerosAdded(probe, ix) <= 0 {
			continue // exact merges belong to the pipeline
		}
		var names, kernels []string
		for _, n := range s.convs {
			names = append(names, nodeRef(n))
			kernels = append(kernels, fmt.Sprint(ix.constant(n.Inputs[1]).Shape))
		}
		out = append(out, growthCand{rewrite: growthMerge,
			detail: fmt.Sprintf("%s (weights %s) -> one conv + Split", strings.Join(names, ", "), strings.Join(kernels, ", ")),
			build:  func(mk weightMaker) (*canon.Graph, error) { return applyMergeAt(g, i, mk) }})
	}
	return out, nil
}

// applyMergeAt merges the i-th merge site (findMergeSites order) on a copy
// of g.
func applyMergeAt(g *canon.Graph, i int, mk weightMaker) (*canon.Graph, error) {
	c := Clone(g)
	if err := c.Infer(); err != nil {
		return nil, err
	}
	ix := newIndex(c)
	cs := findMergeSites(c, ix)
	if i >= len(cs) {
		return nil, fmt.Errorf("merge site %d is gone", i)
	}
	info, err := applyMerge(c, ix, newNamer(c), cs[i], mk)
	if err != nil {
		return nil, err
	}
	c.Values.Set(info.Name, info)
	if _, err := eliminateDead(c); err != nil {
		return nil, err
	}
	return c, nil
}

// applyRegroups rewrites the regroup sites with the given indices (in
// findRegroupSites order) on a copy of g.
func applyRegroups(g *canon.Graph, idx []int, mk weightMaker) (*canon.Graph, error) {
	c := Clone(g)
	ix := newIndex(c)
	nm := newNamer(c)
	sites := findRegroupSites(c, ix)
	for _, i := range idx {
		if i >= len(sites) {
			return nil, fmt.Errorf("regroup site %d is gone", i)
		}
		nn, t, err := regroup(ix, nm, sites[i], mk)
		if err != nil {
			return nil, err
		}
		replaceNode(c, sites[i].conv, nn)
		c.Initializers = append(c.Initializers, t)
	}
	if _, err := eliminateDead(c); err != nil {
		return nil, err
	}
	return c, nil
}

// growthStage greedily applies growth rewrites to g: each round lists the
// candidates (plus the cost-model search's best graph when search is set),
// drops those the model prices above alpha times the current graph, and
// times the rest in the target, cheapest-modelled first, keeping the first
// one measured faster. It stops when a round keeps nothing or after
// maxMeasure timings.
func growthStage(g *canon.Graph, opts Options, search *canon.Graph, applied []string) (*canon.Graph, GrowthStats, error) {
	target := opts.Target
	if target == nil {
		target = InterpTarget{InputShapes: opts.InputShapes}
	}
	st := GrowthStats{Target: target.Name(), Rewrites: []GrowthRewrite{}}
	cur := g
	curCost, err := GraphCost(cur)
	if err != nil {
		return nil, st, err
	}
	for st.Measured < opts.MaxMeasurements {
		var cands []growthCand
		if search != nil {
			proposal := search
			cands = append(cands, growthCand{rewrite: growthSearch,
				detail: "the cost-model search's best graph: " + strings.Join(applied, ", ") + "; " + groupChanges(g, search),
				build:  func(weightMaker) (*canon.Graph, error) { return proposal, nil }})
			search = nil
		}
		if opts.AllowGrowth || opts.Search {
			more, err := growthCandidates(cur)
			if err != nil {
				return nil, st, err
			}
			cands = append(cands, more...)
		}
		var promising []growthCand
		for _, c := range cands {
			priced, err := c.build(shapeOnlyWeight)
			if err != nil {
				continue
			}
			if c.cost, err = GraphCost(priced); err != nil {
				continue
			}
			if c.cost.Cost() < opts.Alpha*curCost.Cost() {
				promising = append(promising, c)
			}
		}
		st.Candidates += len(promising)
		sort.SliceStable(promising, func(i, j int) bool { return promising[i].cost.Cost() < promising[j].cost.Cost() })
		kept := false
		for _, c := range promising {
			if st.Measured >= opts.MaxMeasurements {
				break
			}
			if c.g, err = c.build(eagerWeight); err != nil {
				continue
			}
			if opts.GrowthProgress != nil {
				opts.GrowthProgress(int64(st.Measured), int64(opts.MaxMeasurements))
			}
			cmp, err := target.Compare(cur, c.g)
			if err != nil {
				return nil, st, fmt.Errorf("timing %s (%s) in %s: %w", c.rewrite, c.detail, target.Name(), err)
			}
			st.Measured++
			if opts.GrowthProgress != nil {
				opts.GrowthProgress(int64(st.Measured), int64(opts.MaxMeasurements))
			}
			pb, pa := ParamCount(cur), ParamCount(c.g)
			st.Rewrites = append(st.Rewrites, GrowthRewrite{Rewrite: c.rewrite, Detail: c.detail,
				ParamsBefore: pb, ParamsAfter: pa, ZerosAdded: pa - pb,
				FLOPsBefore: curCost.Total.FLOPs, FLOPsAfter: c.cost.Total.FLOPs,
				ModelledBeforeMs: curCost.Cost() * 1e3, ModelledAfterMs: c.cost.Cost() * 1e3,
				Measured: cmp, Kept: cmp.Faster})
			if cmp.Faster {
				cur, curCost, kept = c.g, c.cost, true
				break
			}
		}
		if !kept {
			break
		}
	}
	return cur, st, nil
}

// groupChanges summarizes how the convs' group counts differ between two
// graphs (by node name): "3 convs group 32 -> 16".
func groupChanges(a, b *canon.Graph) string {
	groups := func(g *canon.Graph) map[string]int64 {
		m := map[string]int64{}
		for _, n := range g.Nodes {
			if c, ok := n.Op.(*canon.Conv); ok {
				m[n.Name] = c.Group
			}
		}
		return m
	}
	ga, gb := groups(a), groups(b)
	count := map[[2]int64]int{}
	var keys [][2]int64
	for name, x := range ga {
		if y, ok := gb[name]; ok && y != x {
			k := [2]int64{x, y}
			if count[k] == 0 {
				keys = append(keys, k)
			}
			count[k]++
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] > keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] > keys[j][1]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d convs group %d -> %d", count[k], k[0], k[1]))
	}
	if n := len(a.Nodes) - len(b.Nodes); n != 0 {
		parts = append(parts, fmt.Sprintf("%+d nodes", -n))
	}
	if len(parts) == 0 {
		return "no conv regrouped"
	}
	return strings.Join(parts, ", ")
}
