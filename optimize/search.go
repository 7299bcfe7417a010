package optimize

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"time"

	"github.com/modelbridge/modelbridge/canon"
)

// SearchOptions tunes Search.
type SearchOptions struct {
	// Alpha keeps candidates whose cost is below Alpha times the best cost
	// found so far (default 1.05): values above 1 let the search walk
	// through slightly worse graphs to reach better ones.
	Alpha float64
	// Budget is the number of candidate expansions (default 100).
	Budget int
	// Machine weighs the cost model (default DefaultMachine).
	Machine *Machine
	// Progress, when set, is called after every expansion with the
	// expansions done and the budget, and once more with done == total
	// when the search ends (it may end early, when no candidate is left).
	Progress func(done, total int64)
}

// SearchStats describes a search.
type SearchStats struct {
	Expansions int           `json:"expansions"`
	Generated  int           `json:"generated"`
	Duplicates int           `json:"duplicates"`
	Queued     int           `json:"queued"`
	StartCost  float64       `json:"start_seconds"`
	BestCost   float64       `json:"best_seconds"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Applied lists the substitutions on the path to the best graph.
	Applied []string `json:"applied"`
}

// Substitution rewrites a graph at every site where it applies and returns
// one rewritten graph per site. Rewritten graphs share nodes and weights
// with the input, which is never modified.
type Substitution struct {
	Name string
	Doc  string
	Run  func(g *canon.Graph, env *searchEnv) ([]*canon.Graph, error)
}

// Substitutions lists the search's rewrites.
func Substitutions() []Substitution {
	return []Substitution{
		{Name: "merge_parallel_convs", Doc: "merge the group-1 convs sharing an input into one conv + Split (grouped convs are not merged: their merged outputs would be interleaved by group)", Run: subMerge},
		{Name: "regroup_conv", Doc: "rewrite a grouped conv with G/f groups", Run: subRegroup},
	}
}

// searchEnv is shared by every candidate of one search: value types (new
// values get new names, so one table serves all candidates), the name
// allocator, and caches of node costs, op hashes and weight digests.
type searchEnv struct {
	values  *canon.ValueTable
	nm      *namer
	m       Machine
	costs   map[*canon.Node]float64
	ops     map[canon.Op]uint64
	digests map[*canon.Tensor]uint64
	pending map[*canon.Tensor]func() ([]float64, error)
	scratch map[string]uint64 // reused by hash
}

// lazyWeight registers a weight whose values are computed only if it ends
// up in the chosen graph; its digest comes from its sources and tag.
func (env *searchEnv) lazyWeight(name string, shape []int64, layout canon.Layout, srcs []*canon.Tensor, tag string, fill func() ([]float64, error)) (*canon.Tensor, error) {
	t := &canon.Tensor{Name: name, DType: canon.Float32, Shape: append([]int64(nil), shape...), Layout: layout}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%v|", tag, shape)
	var b [8]byte
	for _, s := range srcs {
		var d uint64
		if s != nil {
			d = env.digest(s)
		}
		binary.LittleEndian.PutUint64(b[:], d)
		h.Write(b[:])
	}
	env.digests[t] = h.Sum64()
	env.pending[t] = func() ([]float64, error) {
		for _, s := range srcs { // sources may be lazy themselves
			if err := env.materialize(s); err != nil {
				return nil, err
			}
		}
		return fill()
	}
	env.values.Set(name, canon.ValueInfo{Name: name, DType: t.DType, Shape: canon.DimsOf(shape...), RankKnown: true, Const: t})
	return t, nil
}

// materialize computes a lazy weight's data.
func (env *searchEnv) materialize(t *canon.Tensor) error {
	if t == nil || t.Data != nil {
		return nil
	}
	fill, ok := env.pending[t]
	if !ok {
		return nil
	}
	v, err := fill()
	if err != nil {
		return err
	}
	t.Data = f32Tensor(t.Name, t.Shape, t.Layout, v).Data
	delete(env.pending, t)
	return nil
}

func (env *searchEnv) digest(t *canon.Tensor) uint64 {
	if d, ok := env.digests[t]; ok {
		return d
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%v|", t.DType, t.Shape)
	h.Write(t.Data)
	d := h.Sum64()
	env.digests[t] = d
	return d
}

func (env *searchEnv) opHash(op canon.Op) uint64 {
	if d, ok := env.ops[op]; ok {
		return d
	}
	h := fnv.New64a()
	if c, ok := op.(*canon.Constant); ok {
		fmt.Fprintf(h, "Constant|%d", env.digest(c.Value))
	} else {
		fmt.Fprintf(h, "%s|%+v", op.Kind(), op)
	}
	d := h.Sum64()
	env.ops[op] = d
	return d
}

func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	return h
}

func strHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// hash is a canonical digest of what g computes: node kinds and attributes,
// dataflow, graph inputs by name and weights by content. It does not depend
// on node order or on the names of intermediate values, so the same graph
// reached by two rewrite orders is recognised.
func (env *searchEnv) hash(g *canon.Graph) uint64 {
	if env.scratch == nil {
		env.scratch = make(map[string]uint64, len(g.Nodes)*2+len(g.Initializers))
	}
	val := env.scratch
	clear(val)
	for _, in := range g.Inputs {
		val[in.Name] = mix(1, strHash(in.Name))
	}
	for _, t := range g.Initializers {
		if _, isIn := val[t.Name]; !isIn {
			val[t.Name] = mix(2, env.digest(t))
		}
	}
	for _, n := range g.Nodes {
		h := env.opHash(n.Op)
		for _, in := range n.Inputs {
			v, ok := val[in]
			if !ok {
				v = strHash("?" + in)
			}
			h = mix(h, v)
		}
		for i, o := range n.Outputs {
			if o != "" {
				val[o] = mix(h, uint64(i)+1)
			}
		}
	}
	h := uint64(3)
	for _, o := range g.Outputs {
		h = mix(h, val[o.Name])
	}
	return h
}

func (env *searchEnv) cost(g *canon.Graph) float64 {
	return graphSeconds(g, mapInfo(env.values), env.costs, env.m)
}

func subMerge(g *canon.Graph, env *searchEnv) ([]*canon.Graph, error) {
	ix := newIndex(g)
	var out []*canon.Graph
	for _, s := range findMergeSites(g, ix) {
		for _, c := range s.convs {
			for _, in := range c.Inputs[1:] {
				if err := env.materialize(ix.constant(in)); err != nil {
					return nil, err
				}
			}
		}
		ng := shallowClone(g)
		info, err := applyMerge(ng, ix, env.nm, s, env.lazyWeight)
		if err != nil {
			continue
		}
		env.values.Set(info.Name, info)
		out = append(out, ng)
	}
	return out, nil
}

func subRegroup(g *canon.Graph, env *searchEnv) ([]*canon.Graph, error) {
	ix := newIndex(g)
	var out []*canon.Graph
	for _, s := range findRegroupSites(g, ix) {
		nn, t, err := regroup(ix, env.nm, s, env.lazyWeight)
		if err != nil {
			continue
		}
		ng := shallowClone(g)
		replaceNode(ng, s.conv, nn)
		ng.Initializers = append(ng.Initializers, t)
		out = append(out, ng)
	}
	return out, nil
}

type candidate struct {
	g    *canon.Graph
	cost float64
	seq  int
	path []string
}

type candQueue []*candidate

func (q candQueue) Len() int { return len(q) }
func (q candQueue) Less(i, j int) bool {
	if q[i].cost != q[j].cost {
		return q[i].cost < q[j].cost
	}
	return q[i].seq < q[j].seq // stable: earlier candidates first
}
func (q candQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *candQueue) Push(x any)   { *q = append(*q, x.(*candidate)) }
func (q *candQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

// Search is TASO's cost-based backtracking search: a priority queue of
// candidate graphs ordered by modelled cost; the cheapest is expanded by
// applying every substitution at every site, and each new graph whose cost
// is below Alpha times the best so far is queued; duplicates are pruned by
// a canonical hash. It stops after Budget expansions and returns the best
// graph seen (a new graph; g is not modified), with dead nodes removed.
// The result is deterministic for a given input.
func Search(g *canon.Graph, opts SearchOptions) (*canon.Graph, SearchStats, error) {
	start := time.Now()
	var st SearchStats
	alpha, budget := opts.Alpha, opts.Budget
	if alpha <= 0 || math.IsNaN(alpha) {
		alpha = 1.05
	}
	if budget <= 0 {
		budget = 100
	}
	m := DefaultMachine
	if opts.Machine != nil {
		m = *opts.Machine
	}
	// Validate also infers the value types; the substitutions trust it.
	if err := g.Validate(); err != nil {
		return nil, st, fmt.Errorf("search: the input graph is invalid: %w", err)
	}
	env := &searchEnv{
		values:  g.Values.Clone(),
		nm:      newNamer(g),
		m:       m,
		costs:   map[*canon.Node]float64{},
		ops:     map[canon.Op]uint64{},
		digests: map[*canon.Tensor]uint64{},
		pending: map[*canon.Tensor]func() ([]float64, error){},
	}
	root := shallowClone(Clone(g))
	root.Values = env.values
	best := &candidate{g: root, cost: env.cost(root)}
	st.StartCost = best.cost
	seen := map[uint64]bool{env.hash(root): true}
	q := &candQueue{best}
	seq := 1
	subs := Substitutions()
	for q.Len() > 0 && st.Expansions < budget {
		cur := heap.Pop(q).(*candidate)
		st.Expansions++
		if opts.Progress != nil {
			opts.Progress(int64(st.Expansions), int64(budget))
		}
		for _, sub := range subs {
			cands, err := runSubstitution(sub, cur.g, env)
			if err != nil {
				return nil, st, err
			}
			for _, ng := range cands {
				st.Generated++
				h := env.hash(ng)
				if seen[h] {
					st.Duplicates++
					continue
				}
				seen[h] = true
				c := &candidate{g: ng, cost: env.cost(ng), seq: seq, path: append(append([]string(nil), cur.path...), sub.Name)}
				seq++
				if c.cost < best.cost {
					best = c
				}
				if c.cost < alpha*best.cost {
					heap.Push(q, c)
					st.Queued++
				}
			}
		}
		// Only the best `remaining` candidates can still be expanded: new
		// ones only push the others further down. Dropping the rest keeps
		// memory (and GC time) bounded by the budget, without changing
		// the result.
		if remaining := budget - st.Expansions; q.Len() > 2*remaining+16 {
			sort.Sort(*q)
			clear((*q)[remaining:])
			*q = (*q)[:remaining]
			heap.Init(q)
		}
	}
	if opts.Progress != nil {
		opts.Progress(int64(budget), int64(budget))
	}
	out := best.g
	out.Values = nil
	out.Inputs = cloneInfos(out.Inputs)
	out.Outputs = cloneInfos(out.Outputs)
	if _, err := eliminateDead(out); err != nil {
		return nil, st, err
	}
	for _, t := range out.Initializers {
		if err := env.materialize(t); err != nil {
			return nil, st, fmt.Errorf("search: computing weight %q: %w", t.Name, err)
		}
	}
	// Nodes may be shared with other candidates: give the result its own.
	res := Clone(out)
	st.BestCost = best.cost
	st.Applied = append([]string{}, best.path...) // [] rather than null in JSON
	st.Elapsed = time.Since(start)
	return res, st, nil
}

func runSubstitution(sub Substitution, g *canon.Graph, env *searchEnv) (out []*canon.Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("search substitution %s: internal error: %v", sub.Name, r)
		}
	}()
	out, err = sub.Run(g, env)
	if err != nil {
		err = fmt.Errorf("search substitution %s: %w", sub.Name, err)
	}
	return out, err
}
