package onnximport

import (
	"container/heap"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// importer holds the state of one import.
type importer struct {
	opts  formats.ReadOptions
	g     *canon.Graph
	tr    *onnxtensor.Reader
	opset int64
	// mlOpset is the model's ai.onnx.ml opset (-1: none imported).
	mlOpset int64
	cut     *Cut // import only this part of the graph (ReadCut)
	// mapping is the mapped file the model is read from, if it is one.
	mapping *mmapfile.Mapping

	vals    *canon.ValueTable // type (and constant content) of every value so far
	inits   map[string]*canon.Tensor
	uses    *valueUses      // consumers of each value in the ONNX graph (graph outputs count)
	outputs map[string]bool // graph output names
	// freshNames are the value names made by fresh: with the names in
	// vals, every value name in use (one table of every name is enough).
	freshNames map[string]bool
	// nodeNames is every node name in use, made from nodeNameList (the
	// file's nodes' names) on the first freshNode: most graphs need none.
	nodeNames    map[string]bool
	nodeNameList []string
	// fileNames is set instead of nodeNameList when every node of the
	// file has a name of its own: the names are then read from the file
	// (fileNodes) when needed, and no list of them is held.
	fileNames *fileNodes
	// transposed caches (K,N) Gemm weights stored as (N,K) by source name.
	transposed map[string]string
	// transposedData caches transposed weight data by the bytes it came
	// from, for weights read under several names (see transposeData).
	transposedData map[transposeKey][]byte
	// derivedSet names initializers created by the import itself.
	derivedSet map[string]bool
}

// convertGraph builds the canonical graph from the ONNX graph.
func (im *importer) convertGraph(gp *onnxpb.GraphProto, nodes *fileNodes, inits []*canon.Tensor) error {
	g := im.g
	g.Name = gp.GetName()
	im.vals = canon.NewValueTable(0)
	im.inits = map[string]*canon.Tensor{}
	im.uses = &valueUses{}
	im.outputs = map[string]bool{}
	im.freshNames = map[string]bool{}
	im.nodeNames, im.nodeNameList, im.fileNames = nil, nil, nil
	im.transposed = map[string]string{}

	if len(gp.SparseInitializer) > 0 {
		return fmt.Errorf("sparse initializer %q is not supported; densify it before converting", gp.SparseInitializer[0].GetValues().GetName())
	}
	for _, t := range inits {
		if im.inits[t.Name] != nil {
			return fmt.Errorf("initializer %q is defined twice", t.Name)
		}
		im.inits[t.Name] = t
		im.vals.Set(t.Name, constInfo(t))
	}
	g.Initializers = inits

	seenIn := map[string]bool{}
	// resized is set when --input-shape gives an input sizes other than
	// the file records.
	resized := false
	for _, vi := range gp.Input {
		name := vi.GetName()
		if name == "" {
			return fmt.Errorf("graph input with an empty name")
		}
		if seenIn[name] {
			return fmt.Errorf("graph input %q is listed twice", name)
		}
		seenIn[name] = true
		if im.inits[name] != nil {
			continue // an initializer listed as input (IR < 4 style) stays an initializer
		}
		v, err := valueInfo(vi)
		if err != nil {
			return fmt.Errorf("graph input %q: %w", name, err)
		}
		if shape, ok := im.opts.ShapeFor(name, len(g.Inputs)); ok {
			resized = resized || !formats.SizesAgree(v, shape)
			v.Shape, v.RankKnown = canon.DimsOf(shape...), true
		}
		g.Inputs = append(g.Inputs, v)
		im.vals.Set(name, v)
	}
	var have []string
	for _, v := range g.Inputs {
		have = append(have, v.Name)
	}
	if unknown := im.opts.UnknownShapeKeys(have); len(unknown) > 0 {
		return fmt.Errorf("an input shape was given for %q, but the model has no such input (inputs: %s)", unknown[0], strings.Join(have, ", "))
	}

	for _, vi := range gp.Output {
		v, err := valueInfo(vi)
		if err != nil {
			return fmt.Errorf("graph output %q: %w", vi.GetName(), err)
		}
		if v.Name == "" {
			return fmt.Errorf("graph output with an empty name")
		}
		if resized {
			// Declared for the file's input sizes: inferred anew from
			// the sizes given instead.
			v.Shape, v.RankKnown = nil, false
		}
		g.Outputs = append(g.Outputs, v)
		im.outputs[v.Name] = true
		im.uses.add(v.Name)
	}
	g.Meta.SourceOps = map[string]int{}
	for i := range nodes.len() {
		n, err := nodes.head(i)
		if err != nil {
			return err
		}
		for _, in := range n.input {
			if in != "" {
				im.uses.add(in)
			}
		}
		op := n.opType
		if d := n.domain; d != "" && d != "ai.onnx" {
			op = d + ":" + op
		}
		g.Meta.SourceOps[op]++
	}

	order, err := im.sortNodes(nodes)
	if err != nil {
		return err
	}
	names, err := im.nodeNamesFor(nodes)
	if err != nil {
		return err
	}
	fused := map[int]fusedMatch{}
	skip := map[int]bool{}
	for _, f := range fusions {
		if im.opset < f.since || !mayMatch(f, g.Meta.SourceOps) {
			continue
		}
		all, err := nodes.all()
		if err != nil {
			return err
		}
		if names == nil {
			// Decoded nodes are released as they are converted: their
			// names are kept apart for freshNode.
			names = make([]string, len(all))
			for i, n := range all {
				names[i] = n.GetName()
			}
			im.nodeNameList, im.fileNames = names, nil
		}
		for last, m := range f.find(im, all) {
			if _, taken := fused[last]; taken || skip[last] {
				continue
			}
			fused[last] = m
			for _, i := range m.span() {
				skip[i] = true
			}
		}
	}
	for k := range nodes.len() {
		i := k
		if order != nil {
			i = order[k]
		} else if k%(1<<16) == 0 {
			nodes.evictBefore(k) // read in file order: the bytes behind are done
		}
		// Each file node is decoded when it is read, and dropped after:
		// the file's graph and the canonical one are never both whole.
		n, err := nodes.at(i)
		if err != nil {
			return err
		}
		nodes.release(i)
		// The canonical nodes share the one copy of each name.
		for k, x := range n.Input {
			n.Input[k] = im.uses.intern(x)
		}
		for k, x := range n.Output {
			n.Output[k] = im.uses.intern(x)
		}
		if m := fused[i]; m != nil {
			if err := m.convert(im, nodeName(names, i, n)); err != nil {
				return err
			}
			continue
		}
		if skip[i] {
			continue // part of a subgraph read as one node
		}
		if err := im.convertNode(n, nodeName(names, i, n)); err != nil {
			return err
		}
	}

	for i, out := range g.Outputs {
		v, ok := im.vals.Lookup(out.Name)
		if !ok {
			return fmt.Errorf("graph output %q is not computed by any node", out.Name)
		}
		// The declared type wins; missing parts come from inference.
		if out.DType == canon.Undefined {
			g.Outputs[i].DType = v.DType
		}
		if !out.RankKnown && v.RankKnown {
			g.Outputs[i].Shape, g.Outputs[i].RankKnown = v.Shape, true
		}
	}
	nodes.evictBefore(nodes.len())
	im.pruneDead()
	im.assignLayouts()
	// Validation makes the graph's own table of value types: the import's
	// tables (a few entries per value) are not needed any more.
	im.release()
	// Collecting now, with only the canonical graph left, starts
	// validation's tables from its size rather than from the peak of the
	// conversion (measured: a tenth less peak memory for big graphs).
	runtime.GC()
	return g.Validate() // structure, layouts, then full shape inference
}

// release drops the tables of the import once the canonical graph holds
// everything, so that they are not kept alongside it.
func (im *importer) release() {
	im.vals, im.inits, im.uses, im.outputs, im.freshNames, im.nodeNames, im.nodeNameList, im.fileNames = nil, nil, nil, nil, nil, nil, nil, nil
	im.transposed, im.transposedData, im.derivedSet = nil, nil, nil
}

// constInfo is the type of an initializer or constant tensor.
func constInfo(t *canon.Tensor) canon.ValueInfo {
	return canon.ValueInfo{Name: t.Name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true, Const: t}
}

// valueInfo converts a graph input/output declaration.
func valueInfo(vi *onnxpb.ValueInfoProto) (canon.ValueInfo, error) {
	v, err := typeInfo(vi.GetType())
	v.Name = vi.GetName()
	return v, err
}

// typeInfo converts a TypeProto: a tensor, a sequence of tensors, or an
// optional of either (untyped: inference fills it in).
func typeInfo(tp *onnxpb.TypeProto) (canon.ValueInfo, error) {
	var v canon.ValueInfo
	if tp == nil || tp.GetValue() == nil {
		return v, nil
	}
	kind := canon.TensorValue
	if ot := tp.GetOptionalType(); ot != nil {
		inner, err := typeInfo(ot.GetElemType())
		if err != nil {
			return v, err
		}
		if inner.Kind.IsOptional() {
			return v, fmt.Errorf("an optional of an optional is not supported")
		}
		inner.Kind = canon.OptionalOf(inner.Kind)
		return inner, nil
	}
	if st := tp.GetSequenceType(); st != nil {
		elem := st.GetElemType()
		if elem != nil && elem.GetValue() != nil && elem.GetTensorType() == nil {
			return v, fmt.Errorf("only sequences of tensors are supported (this one holds sequences, maps or optionals)")
		}
		kind, tp = canon.SequenceValue, elem
	}
	tt := tp.GetTensorType()
	if tt == nil {
		if kind == canon.SequenceValue {
			v.Kind = kind // a sequence of tensors of unknown type
			return v, nil
		}
		return v, fmt.Errorf("only tensor, sequence and optional values are supported (this one is a map or a sparse tensor)")
	}
	v.Kind = kind
	if et := tt.GetElemType(); et != 0 {
		d, err := onnxtensor.DType(et)
		if err != nil {
			return v, err
		}
		v.DType = d
	}
	if sh := tt.GetShape(); sh != nil {
		v.RankKnown = true
		v.Shape = make([]canon.Dim, len(sh.Dim))
		for i, d := range sh.Dim {
			switch x := d.GetValue().(type) {
			case *onnxpb.TensorShapeProto_Dimension_DimValue:
				if x.DimValue < 0 {
					v.Shape[i] = canon.Dim{Size: -1}
				} else {
					v.Shape[i] = canon.Dim{Size: x.DimValue}
				}
			case *onnxpb.TensorShapeProto_Dimension_DimParam:
				v.Shape[i] = canon.Dim{Size: -1, Param: x.DimParam}
			default:
				v.Shape[i] = canon.Dim{Size: -1}
			}
		}
	}
	return v, nil
}

// nodeName is the name of file node i (n): names[i], or n's own name when
// nodeNamesFor kept every name as it is (names is nil).
func nodeName(names []string, i int, n *onnxpb.NodeProto) string {
	if names == nil {
		return n.GetName()
	}
	return names[i]
}

// nodeNamesFor keeps ONNX node names and gives unnamed or duplicate nodes
// stable unique names (OpType_index, index being the node's position in
// the file). When every node has a name of its own and the nodes are
// read one at a time, it returns nil: see nodeName.
func (im *importer) nodeNamesFor(nodes *fileNodes) ([]string, error) {
	out := make([]string, nodes.len())
	for i := range out {
		h, err := nodes.head(i)
		if err != nil {
			return nil, err
		}
		out[i] = h.name
	}
	// Most files name every node once: then the names are kept as they
	// are, with one table of them instead of two.
	seen := make(map[string]bool, len(out))
	for _, name := range out {
		if name == "" || seen[name] {
			seen = nil
			break
		}
		seen[name] = true
	}
	if seen != nil {
		if nodes.decoded == nil {
			// Each node's own name is read with the node (nodeName).
			im.fileNames = nodes
			return nil, nil
		}
		im.nodeNameList = out
		return out, nil
	}
	taken := map[string]bool{}
	for _, name := range out {
		if name != "" {
			taken[name] = true
		}
	}
	used := map[string]bool{}
	for i, name := range out {
		if name == "" || used[name] {
			h, err := nodes.head(i)
			if err != nil {
				return nil, err
			}
			base := h.opType + "_" + strconv.Itoa(i)
			if name != "" {
				base = name + "_" + strconv.Itoa(i)
			}
			name = base
			for k := 1; taken[name] || used[name]; k++ {
				name = base + "_" + strconv.Itoa(k)
			}
		}
		used[name] = true
		out[i] = name
	}
	im.nodeNameList = out
	return out, nil
}

// intHeap is a min-heap of node indices, so that a topological sort keeps
// the file's order whenever the file's order is valid.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sortNodes orders the ONNX nodes topologically, checking that every input
// is defined exactly once. It returns nil when the file's order is one.
func (im *importer) sortNodes(nodes *fileNodes) ([]int, error) {
	count := nodes.len()
	producer := map[string]int{}
	for i := range count {
		n, err := nodes.head(i)
		if err != nil {
			return nil, err
		}
		for _, o := range n.output {
			if o == "" {
				continue
			}
			if j, dup := producer[o]; dup {
				first, _ := nodes.head(j)
				return nil, fmt.Errorf("value %q is produced by two nodes (%s and %s)", o, nodeLabel(first, j), nodeLabel(n, i))
			}
			if im.vals.Has(o) {
				return nil, fmt.Errorf("%s writes %q, which is already a graph input or initializer", nodeLabel(n, i), o)
			}
			producer[o] = i
		}
	}
	pending := make([]int32, count)
	// readers[i] lists the nodes that read node i's outputs; most nodes
	// have one reader, kept in first without a slice of its own.
	first := make([]int32, count)
	var more map[int32][]int32
	for i := range first {
		first[i] = -1
	}
	for i := range count {
		n, err := nodes.head(i)
		if err != nil {
			return nil, err
		}
		var seen map[int]bool // for nodes of many inputs
		if len(n.input) > 8 {
			seen = map[int]bool{}
		}
		for k, in := range n.input {
			if in == "" {
				continue
			}
			if j, ok := producer[in]; ok {
				if seen != nil && seen[j] || seen == nil && readsEarlier(n.input[:k], j, producer) {
					continue // node j is already counted once
				}
				if seen != nil {
					seen[j] = true
				}
				pending[i]++
				if first[j] < 0 {
					first[j] = int32(i)
				} else {
					if more == nil {
						more = map[int32][]int32{}
					}
					more[int32(j)] = append(more[int32(j)], int32(i))
				}
				continue
			}
			if !im.vals.Has(in) {
				return nil, fmt.Errorf("%s reads %q, which is not a graph input, an initializer or any node's output; the model is incomplete", nodeLabel(n, i), in)
			}
		}
	}
	producer = nil
	h := &intHeap{}
	for i := range count {
		if pending[i] == 0 {
			*h = append(*h, i)
		}
	}
	heap.Init(h)
	order := make([]int, 0, count)
	release := func(r int32) {
		if pending[r]--; pending[r] == 0 {
			heap.Push(h, int(r))
		}
	}
	for h.Len() > 0 {
		i := heap.Pop(h).(int)
		order = append(order, i)
		if first[i] >= 0 {
			release(first[i])
		}
		for _, r := range more[int32(i)] {
			release(r)
		}
	}
	if len(order) == count && slices.IsSorted(order) {
		return nil, nil // the file's order (most files): no list needed
	}
	if len(order) != count {
		for i := range count {
			if pending[i] > 0 {
				n, _ := nodes.head(i)
				return nil, fmt.Errorf("%s is part of a cycle: its inputs depend on its own outputs; ONNX graphs must be acyclic", nodeLabel(n, i))
			}
		}
	}
	return order, nil
}

// readsEarlier reports whether one of inputs (a node's earlier inputs) is
// written by node j.
func readsEarlier(inputs []string, j int, producer map[string]int) bool {
	for _, in := range inputs {
		if p, ok := producer[in]; ok && p == j {
			return true
		}
	}
	return false
}

// fusionOps names, for each fusion kind, an ONNX op that every match of it
// contains: a file without it has no match, and its nodes need not be
// decoded all at once to look for one. A fusion not listed is always
// looked for.
var fusionOps = map[string]string{"Gelu": "Erf", "Trilu": "Where"}

// mayMatch reports whether fusion f can match in a file whose ops are
// counted in sourceOps.
func mayMatch(f fusion, sourceOps map[string]int) bool {
	op, ok := fusionOps[f.kind]
	return !ok || sourceOps[op] > 0
}

// fresh returns an unused value name derived from base.
func (im *importer) fresh(base string) string {
	name := base
	for k := 1; im.nameTaken(name); k++ {
		name = base + "_" + strconv.Itoa(k)
	}
	im.freshNames[name] = true
	return name
}

// nameTaken tells whether a value of that name exists or was made.
func (im *importer) nameTaken(name string) bool {
	ok := im.vals.Has(name)
	return ok || im.freshNames[name]
}

// freshNode returns an unused node name derived from base.
func (im *importer) freshNode(base string) string {
	if im.nodeNames == nil {
		im.nodeNames = make(map[string]bool, len(im.nodeNameList))
		for _, n := range im.nodeNameList {
			im.nodeNames[n] = true
		}
		if f := im.fileNames; f != nil {
			for i := range f.len() {
				if h, err := f.head(i); err == nil { // every head was read once already
					im.nodeNames[h.name] = true
				}
			}
		}
	}
	name := base
	for k := 1; im.nodeNames[name]; k++ {
		name = base + "_" + strconv.Itoa(k)
	}
	im.nodeNames[name] = true
	return name
}

// addInit appends a tensor derived at import (a transposed weight, a
// re-laid-out copy) right after the initializer it came from.
func (im *importer) addInit(t *canon.Tensor, after string) {
	idx := len(im.g.Initializers)
	for i, x := range im.g.Initializers {
		if x.Name == after {
			idx = i + 1
			for idx < len(im.g.Initializers) && strings.HasPrefix(im.g.Initializers[idx].Name, after) && im.derived(im.g.Initializers[idx].Name) {
				idx++
			}
			break
		}
	}
	im.g.Initializers = append(im.g.Initializers, nil)
	copy(im.g.Initializers[idx+1:], im.g.Initializers[idx:])
	im.g.Initializers[idx] = t
	im.inits[t.Name] = t
	im.vals.Set(t.Name, constInfo(t))
	im.derivedNames()[t.Name] = true
}

func (im *importer) derivedNames() map[string]bool {
	if im.derivedSet == nil {
		im.derivedSet = map[string]bool{}
	}
	return im.derivedSet
}

func (im *importer) derived(name string) bool { return im.derivedSet[name] }

// pruneDead removes nodes and initializers that the import itself made
// unused (Constant nodes and initializers folded into attributes, Gemm
// weights replaced by transposed copies). Values unused in the file stay.
// The nodes are in topological order, so one pass from the end sees every
// consumer of a node before the node: a chain of folded nodes goes in
// linear time, not one node per pass over the graph.
func (im *importer) pruneDead() {
	g := im.g
	// Values the file reads are marked in im.uses; the others (made by
	// the import) in usedOther.
	usedOther := map[string]bool{}
	use := func(name string) {
		if !im.uses.mark(name) {
			usedOther[name] = true
		}
	}
	used := func(name string) bool { return im.uses.marked(name) || usedOther[name] }
	for _, o := range g.Outputs {
		use(o.Name)
	}
	madeDead := func(name string) bool { return !used(name) && im.uses.count(name) > 0 }
	keep := make([]bool, len(g.Nodes))
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		dead := len(n.Outputs) > 0
		for _, o := range n.Outputs {
			if o != "" && !madeDead(o) {
				dead = false
			}
		}
		if dead {
			continue
		}
		keep[i] = true
		for _, in := range n.Inputs {
			use(in)
		}
	}
	nodes := g.Nodes[:0]
	for i, n := range g.Nodes {
		if keep[i] {
			nodes = append(nodes, n)
		}
	}
	for i := len(nodes); i < len(g.Nodes); i++ {
		g.Nodes[i] = nil
	}
	g.Nodes = nodes
	inits := g.Initializers[:0]
	for _, t := range g.Initializers {
		if madeDead(t.Name) || (im.derived(t.Name) && !used(t.Name)) {
			continue
		}
		inits = append(inits, t)
	}
	for i := len(inits); i < len(g.Initializers); i++ {
		g.Initializers[i] = nil
	}
	g.Initializers = inits
}

// assignLayouts gives every weight the layout its consumer's role needs
// (canon.AssignLayouts, which copies a weight read in two layouts under a
// new name), then moves each copy next to the initializer it came from, as
// the import places every tensor it derives.
func (im *importer) assignLayouts() {
	before := len(im.g.Initializers)
	canon.AssignLayouts(im.g)
	inits := im.g.Initializers
	if len(inits) == before {
		return
	}
	orig := append([]*canon.Tensor{}, inits[:before]...)
	copies := append([]*canon.Tensor{}, inits[before:]...)
	im.g.Initializers = inits[:before:before]
	for _, c := range copies {
		im.addInit(c, sourceOf(c, orig))
	}
}

// sourceOf names the initializer that copy c was made from: the one whose
// name it extends and whose data it shares, or "" when there is none.
func sourceOf(c *canon.Tensor, inits []*canon.Tensor) string {
	for _, t := range inits {
		if strings.HasPrefix(c.Name, t.Name+"_") && len(t.Data) == len(c.Data) && (len(t.Data) == 0 || &t.Data[0] == &c.Data[0]) {
			return t.Name
		}
	}
	return ""
}

// sortedKeys is for deterministic messages.
func sortedKeys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nodeLabel names a node of the file for an error message; unnamed nodes
// are identified by their position in the file.
func nodeLabel(n nodeHead, index int) string {
	if n.name != "" {
		return fmt.Sprintf("node %q (%s)", n.name, n.opType)
	}
	return fmt.Sprintf("node #%d (%s, unnamed)", index, n.opType)
}
