package torchscript

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
)

// builder accumulates the canonical graph as the code runs.
type builder struct {
	a    *archive
	g    *canon.Graph
	vals map[string]canon.ValueInfo
	used map[string]bool
	// suffix is the next _N unique tries for a base name, so that naming
	// the n-th node of one kind does not scan n taken names.
	suffix map[string]int
	inits  map[*tensorRef]string
	// inUses records the uses of graph inputs that fix their types (see
	// inputdtypes.go).
	inUses inputUses
	consts int
	// syms names the run-time dimensions of values made by dynamic views
	// (see dynInt).
	syms map[string][]string
	// views are values that alias part of another tensor (x[1:3], x[k],
	// x.view(...)): an in-place op on one writes into that tensor. Views
	// made by slice and select are tracked (see views.go); others are
	// opaque.
	views map[string]*viewOf
	// stale are views whose tensor was written through another view;
	// reading one is refused.
	stale map[string]bool
	// optional are nodes that compute a result the model may not read
	// (adaptive max pooling's indices); setOutputs drops those unread.
	optional map[*canon.Node]bool
	// complex are the values holding complex tensors as (real, imaginary)
	// pairs along a last axis of 2 (see ops_signal_complex.go).
	complex map[string]bool
	// root is the outermost graph while nodes go to a branch or loop body
	// (g); weights and constants always become root's initializers, so
	// that a value made inside one subgraph can be read outside it.
	root *canon.Graph
	// subDepth counts the subgraphs being built around the current node.
	subDepth int
	// listDepth is the depth of the body that made each list made inside
	// a branch or loop body: code at that depth may change it.
	listDepth map[*listVal]int
	dictDepth map[*dictVal]int   // the same for dicts
	objDepth  map[*moduleVal]int // and for objects of scripted classes
	// outNames names graph outputs by position: the keys of the dicts a
	// forward returns (outputs.go).
	outNames map[int]string
	// rankWhy says why a value's rank is unknown, when an if made it so
	// (control_ranks.go).
	rankWhy map[string]string
	// notes are remarks for the graph's Meta.Notes (assumptions the
	// import makes).
	notes []string
}

// initGraph is the graph that holds initializers.
func (b *builder) initGraph() *canon.Graph {
	if b.root != nil {
		return b.root
	}
	return b.g
}

func newBuilder(a *archive) *builder {
	return &builder{a: a, g: &canon.Graph{}, vals: map[string]canon.ValueInfo{}, used: map[string]bool{}, suffix: map[string]int{}, inits: map[*tensorRef]string{}, syms: map[string][]string{}, views: map[string]*viewOf{}, stale: map[string]bool{}}
}

// unique returns base, or base_N when base is taken.
func (b *builder) unique(base string) string {
	if base == "" {
		base = "v"
	}
	name := base
	i := max(b.suffix[base], 1)
	for ; b.used[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	b.suffix[base] = i
	b.used[name] = true
	return name
}

// addInput declares a graph input of element type dtype.
func (b *builder) addInput(name string, shape []int64, dtype canon.DType) *tensorVal {
	vi := canon.ValueInfo{Name: b.unique(name), DType: dtype}
	if shape != nil {
		vi.Shape = canon.DimsOf(shape...)
		vi.RankKnown = true
	}
	b.g.Inputs = append(b.g.Inputs, vi)
	b.vals[vi.Name] = vi
	return &tensorVal{name: vi.Name, info: vi}
}

// valueName makes t a graph value and returns its name: weights and
// constants become initializers on first use (finishGraph gives them the
// layout their consumers need).
func (b *builder) valueName(t *tensorVal) (string, error) {
	switch {
	case t.name != "":
		if b.stale[t.name] {
			return "", fmt.Errorf("%s is a view of a tensor that was since written (in place, or through another view); torch would read the new values, which this importer does not track: slice the tensor again after writing", t.name)
		}
		return t.name, nil
	case t.ref != nil:
		if name, ok := b.inits[t.ref]; ok {
			return name, nil
		}
		loaded, err := t.ref.load(b.a, t.path)
		if err != nil {
			return "", err
		}
		init := *loaded
		init.Name = b.unique(t.path)
		b.initGraph().Initializers = append(b.initGraph().Initializers, &init)
		b.inits[t.ref] = init.Name
		b.vals[init.Name] = canon.ValueInfo{Name: init.Name, DType: init.DType, Shape: canon.DimsOf(init.Shape...), RankKnown: true, Const: &init}
		return init.Name, nil
	case t.konst != nil:
		if err := b.a.charge("a constant", int64(len(t.konst.Data))); err != nil {
			return "", err
		}
		init := *t.konst
		b.consts++
		init.Name = b.unique("const")
		b.initGraph().Initializers = append(b.initGraph().Initializers, &init)
		vi := canon.ValueInfo{Name: init.Name, DType: init.DType, Shape: canon.DimsOf(init.Shape...), RankKnown: true, Const: &init}
		b.vals[init.Name] = vi
		*t = tensorVal{name: init.Name, info: vi}
		return init.Name, nil
	}
	return "", fmt.Errorf("internal error: empty tensor value")
}

// info is the inferred type of a tensor value.
func (b *builder) info(t *tensorVal) canon.ValueInfo {
	switch {
	case t.name != "":
		return b.vals[t.name]
	case t.ref != nil:
		return canon.ValueInfo{DType: t.ref.storage.dtype, Shape: canon.DimsOf(t.ref.size...), RankKnown: true}
	case t.konst != nil:
		return canon.ValueInfo{DType: t.konst.DType, Shape: canon.DimsOf(t.konst.Shape...), RankKnown: true, Const: t.konst}
	}
	return canon.ValueInfo{}
}

// emit adds a node reading ins (nil for an absent optional input) and
// returns its nOut outputs, typed by shape inference.
func (b *builder) emit(scope string, op canon.Op, ins []*tensorVal, nOut int) ([]*tensorVal, error) {
	n := &canon.Node{Op: op, Inputs: make([]string, len(ins))}
	infos := make([]canon.ValueInfo, len(ins))
	for i, t := range ins {
		if t == nil {
			continue
		}
		name, err := b.valueName(t)
		if err != nil {
			return nil, err
		}
		n.Inputs[i] = name
		infos[i] = b.vals[name]
	}
	base := op.Kind()
	if scope != "" {
		base = scope + "." + op.Kind()
	}
	n.Name = b.unique(base)
	for i := 0; i < nOut; i++ {
		if i == 0 {
			n.Outputs = append(n.Outputs, n.Name)
		} else {
			n.Outputs = append(n.Outputs, b.unique(n.Name+":"+strconv.Itoa(i)))
		}
	}
	outs, err := canon.InferNode(n, infos)
	if err != nil {
		return nil, err
	}
	b.g.Nodes = append(b.g.Nodes, n)
	b.inUses.noteNode(n)
	res := make([]*tensorVal, nOut)
	for i, o := range outs {
		b.vals[o.Name] = o
		res[i] = &tensorVal{name: o.Name, info: o}
	}
	return res, nil
}

// emit1 is emit for single-output ops.
func (b *builder) emit1(scope string, op canon.Op, ins ...*tensorVal) (*tensorVal, error) {
	out, err := b.emit(scope, op, ins, 1)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// setOutputs names the graph outputs: "output" for one, "output_<i>" for
// several (i is the position in outs; a nil entry makes no output). A value produced by a node is renamed in place; an input or
// weight returned as is goes through an Identity. Renaming is done in one
// pass over the graph at the end, so that many outputs (a Split into
// thousands of pieces, returned) cost linear time.
func (b *builder) setOutputs(outs []*tensorVal) error {
	type slot struct {
		n *canon.Node
		i int
	}
	producer := map[string]slot{}
	for _, n := range b.g.Nodes {
		for i, o := range n.Outputs {
			producer[o] = slot{n, i}
		}
	}
	renamed := map[string]string{}
	for i, t := range outs {
		if t == nil {
			continue // a result that is not computed: its name stays unused
		}
		want := "output"
		if len(outs) > 1 {
			want = "output_" + strconv.Itoa(i)
		}
		if name := b.outNames[i]; name != "" {
			want = name
		}
		if b.used[want] {
			want = b.unique(want)
		} else {
			b.used[want] = true
		}
		src, err := b.valueName(t)
		if err != nil {
			return err
		}
		if to, done := renamed[src]; done {
			src = to
		} else if p, ok := producer[src]; ok {
			p.n.Outputs[p.i] = want
			renamed[src] = want
			b.renameValue(src, want)
			continue
		}
		id, err := b.emit("", &canon.Identity{}, []*tensorVal{{name: src, info: b.vals[src]}}, 1)
		if err != nil {
			return err
		}
		b.g.Nodes[len(b.g.Nodes)-1].Outputs[0] = want
		b.renameValue(id[0].name, want)
	}
	if len(renamed) > 0 {
		for _, n := range b.g.Nodes {
			for i, in := range n.Inputs {
				if to, ok := renamed[in]; ok {
					n.Inputs[i] = to
				}
			}
		}
	}
	b.pruneOptional()
	return nil
}

// renameValue moves the type of value from to the name to and makes it a
// graph output.
func (b *builder) renameValue(from, to string) {
	vi := b.vals[from]
	vi.Name = to
	b.vals[to] = vi
	delete(b.vals, from)
	b.g.Outputs = append(b.g.Outputs, vi)
}
