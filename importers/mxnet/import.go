// Package mxnetimport reads MXNet models: `-symbol.json` graphs (all three
// JSON generations) with their `-NNNN.params` weights, and NDArray list
// files on their own. MXNet's defaults and conventions (fix_gamma, eps 1e-3,
// FullyConnected flattening, Reshape codes, layouts) are resolved here into
// canonical ops.
package mxnetimport

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/databudget"
	"github.com/modelbridge/modelbridge/internal/mxparams"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/internal/regfile"
)

func init() {
	formats.RegisterImporter(&formats.Importer{
		Name:       "mxnet",
		Extensions: []string{"-symbol.json", ".params"},
		Sniff:      Sniff,
		Read:       Read,
		Ops:        Ops,
		SourceOps:  SourceOps,
		// The weights of prefix-symbol.json are in prefix-NNNN.params.
		WeightsBeside: "-NNNN.params",
	})
}

// Sniff recognizes an NDArray list (magic 0x112) or a JSON object that
// mentions "nodes" near its start.
func Sniff(head []byte) bool {
	if mxparams.IsList(head) {
		return true
	}
	t := bytes.TrimSpace(head)
	return len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"nodes"`))
}

// Read imports path: a params file alone gives a weights-only graph; a
// symbol file is paired with opts.Params or the newest `<prefix>-NNNN.params`
// beside it, or read alone (weights become graph inputs).
func Read(path string, opts formats.ReadOptions) (g *canon.Graph, err error) {
	// Every check is meant to run before a panic could; this is the net.
	defer panicerr.Recover(path, &err)
	f, _, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	f.Close()
	// A damaged .params file gets the params reader's error, not the
	// symbol parser's.
	if mxparams.IsList(head[:n]) || strings.HasSuffix(strings.ToLower(path), ".params") {
		return ReadParams(path)
	}
	return ReadSymbol(path, opts)
}

// ReadParams imports a params file as a graph with no nodes: every array is
// an initializer (its layout unknown, since no op uses it).
func ReadParams(path string) (*canon.Graph, error) {
	arrays, m, err := mxparams.Open(path)
	if err != nil {
		return nil, err
	}
	g := &canon.Graph{Name: checkpointPrefix(filepath.Base(path))}
	g.AddResource(m)
	if err := addParams(g, path, arrays); err != nil {
		g.Close() // releases the mapping: nothing may point into it now
		return nil, err
	}
	return g, nil
}

// addParams makes arrays the initializers of the node-less graph g.
func addParams(g *canon.Graph, path string, arrays []*mxparams.Array) error {
	g.Meta.SourceFormat = "mxnet"
	g.Meta.Producer = "mxnet"
	seen := map[string]string{}
	for _, a := range arrays {
		if a.None {
			g.Meta.Props = append(g.Meta.Props, canon.KeyValue{Key: "skipped_empty_array", Value: a.Name})
			continue
		}
		if prev, ok := seen[a.Tensor.Name]; ok {
			return fmt.Errorf("%s: arrays %q and %q have the same name once the arg:/aux: prefix is removed", path, prev, a.Name)
		}
		seen[a.Tensor.Name] = a.Name
		addArrayNotes(g, a)
		g.Initializers = append(g.Initializers, a.Tensor)
	}
	g.Meta.Props = append(g.Meta.Props, canon.KeyValue{Key: "params_file", Value: filepath.Base(path)})
	if err := g.Validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func addArrayNotes(g *canon.Graph, a *mxparams.Array) {
	if a.Storage != mxparams.StorageDefault {
		g.Meta.Props = append(g.Meta.Props, canon.KeyValue{Key: "densified:" + a.Tensor.Name, Value: mxparams.StorageName(a.Storage)})
		g.Meta.Notes = append(g.Meta.Notes, fmt.Sprintf("%s was stored as %s and has been made dense", a.Tensor.Name, mxparams.StorageName(a.Storage)))
	}
	if a.Prefix() == "aux" {
		g.Meta.Props = append(g.Meta.Props, canon.KeyValue{Key: "aux:" + a.Tensor.Name, Value: "auxiliary state"})
	}
}

// checkpointPrefix strips "-symbol.json", "-NNNN.params" or the extension.
func checkpointPrefix(base string) string {
	if p, ok := strings.CutSuffix(base, "-symbol.json"); ok {
		return p
	}
	if m := epochRE.FindStringSubmatch(base); m != nil {
		return m[1]
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

var epochRE = regexp.MustCompile(`^(.*)-([0-9]+)\.params$`)

// FindParams returns the newest `<prefix>-NNNN.params` beside a symbol file,
// or "" when there is none.
func FindParams(symbolPath string) (string, error) {
	dir := filepath.Dir(symbolPath)
	prefix := checkpointPrefix(filepath.Base(symbolPath))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	best, bestEpoch := "", int64(-1)
	for _, e := range entries {
		m := epochRE.FindStringSubmatch(e.Name())
		if m == nil || m[1] != prefix || e.IsDir() {
			continue
		}
		ep, err := strconv.ParseInt(m[2], 10, 64)
		if err == nil && ep > bestEpoch {
			best, bestEpoch = filepath.Join(dir, e.Name()), ep
		}
	}
	if best != "" {
		if err := confined(dir, best); err != nil {
			return "", err
		}
	}
	return best, nil
}

// confined refuses a params file found automatically that leads, through
// a symlink, out of the symbol's folder (as ONNX external data must stay
// in the model's folder): a model shared as a folder must not make us read
// arbitrary files. An explicit --params is the user's choice.
func confined(dir, file string) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("symbol folder %s: %v", dir, err)
	}
	realFile, err := filepath.EvalSymlinks(file)
	if err != nil {
		return fmt.Errorf("params file %s: %v", file, err)
	}
	if rel, err := filepath.Rel(realDir, realFile); err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("params file %s resolves (through a symlink) to %s, outside the symbol's folder; only files inside it are found automatically (pass --params %s to use it anyway)", file, realFile, realFile)
	}
	return nil
}

// ReadSymbol imports a symbol file, with weights when they can be found.
func ReadSymbol(path string, opts formats.ReadOptions) (*canon.Graph, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxSymbolBytes {
		return nil, fmt.Errorf("%s: %d bytes is too large for a symbol JSON", path, st.Size())
	}
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sym, err := parseSymbol(data, path)
	if err != nil {
		return nil, err
	}
	paramsPath := opts.Params
	if paramsPath == "" {
		if paramsPath, err = FindParams(path); err != nil {
			return nil, err
		}
	}
	if paramsPath == "" {
		return convert(sym, path, "", nil, opts, madeBudget(int64(len(data)), 0))
	}
	arrays, params, err := mxparams.Open(paramsPath)
	if err != nil {
		return nil, err
	}
	g, err := convert(sym, path, paramsPath, arrays, opts, madeBudget(int64(len(data)), int64(len(params.Data))))
	if err != nil {
		params.Close()
		return nil, err
	}
	g.AddResource(params)
	return g, nil
}

// builder turns the symbol's nodes into canonical nodes.
type builder struct {
	file       string
	paramsFile string
	sym        *symbol
	g          *canon.Graph
	vals       map[string]canon.ValueInfo
	params     map[string]*mxparams.Array // by name without arg:/aux:
	used       map[string]bool            // params consumed
	inits      map[string]*initUse        // initializers created, by name
	inputOrder map[string]int             // graph input -> node index
	outs       [][]string                 // canonical values of each node's outputs
	taken      map[string]bool            // value and node names in use
	opts       formats.ReadOptions
	// budget counts the tensors the importer creates (see madeBudget).
	budget databudget.Budget
}

// initUse records how the first consumer shaped an initializer, so that a
// second consumer wanting it differently is caught.
type initUse struct {
	t    *canon.Tensor
	node string
}

// madeBudget bounds the tensor data the importer creates (unit scales,
// copies of shared weights) for a checkpoint of the given sizes: a corrupt
// shape or attribute (a channel count of 10^12) must give an error, not an
// allocation of that size. The params' own arrays count against the
// checkpoint's budget. Real checkpoints stay far below it: what the
// importer builds is a small fraction of the weights.
func madeBudget(symbolBytes, paramsBytes int64) databudget.Budget {
	b := databudget.ForInput(symbolBytes + paramsBytes)
	b.Used = paramsBytes
	return b
}

// reserve takes the data of a tensor the importer is about to create from
// the budget, or explains why it cannot.
func (b *builder) reserve(c *nodeCtx, what string, dt canon.DType, shape []int64) error {
	n := (&canon.Tensor{DType: dt, Shape: shape}).ByteSize()
	if !b.budget.Take(n) {
		return c.errf("the %s, %s%s, would need more data than this checkpoint can justify (%d bytes left of the %d allowed); the input shape or an attribute is corrupt", what, dt, fmtShape(shape), b.budget.Limit-b.budget.Used, b.budget.Limit)
	}
	return nil
}

func convert(sym *symbol, file, paramsFile string, arrays []*mxparams.Array, opts formats.ReadOptions, budget databudget.Budget) (*canon.Graph, error) {
	b := &builder{
		file: file, paramsFile: paramsFile, sym: sym, opts: opts, budget: budget,
		g:          &canon.Graph{Name: checkpointPrefix(filepath.Base(file))},
		vals:       map[string]canon.ValueInfo{},
		used:       map[string]bool{},
		inits:      map[string]*initUse{},
		inputOrder: map[string]int{},
		outs:       make([][]string, len(sym.Nodes)),
		taken:      map[string]bool{},
	}
	b.g.Meta = canon.Metadata{SourceFormat: "mxnet", Producer: "mxnet", ProducerVersion: versionString(sym.version)}
	b.g.Meta.Props = append(b.g.Meta.Props, canon.KeyValue{Key: "symbol_format", Value: sym.generation})
	if arrays != nil {
		b.params = map[string]*mxparams.Array{}
		for _, a := range arrays {
			if a.None {
				continue
			}
			if prev, ok := b.params[a.Tensor.Name]; ok {
				return nil, fmt.Errorf("%s: arrays %q and %q have the same name once the arg:/aux: prefix is removed", paramsFile, prev.Name, a.Name)
			}
			b.params[a.Tensor.Name] = a
		}
		b.g.Meta.Props = append(b.g.Meta.Props, canon.KeyValue{Key: "params_file", Value: filepath.Base(paramsFile)})
		b.g.Meta.SourceFiles = append(b.g.Meta.SourceFiles, paramsFile)
	} else {
		b.g.Meta.Props = append(b.g.Meta.Props, canon.KeyValue{Key: "weights", Value: "absent"})
		b.g.Meta.WeightsMissing = true
	}
	needed, err := b.reachable()
	if err != nil {
		return nil, err
	}
	b.g.Meta.SourceOps = map[string]int{}
	for _, n := range sym.Nodes {
		if n.Op != "null" {
			b.g.Meta.SourceOps[n.Op]++
		}
	}
	for i, n := range sym.Nodes {
		if !needed[i] || n.Op == "null" {
			continue
		}
		outs, err := b.convertNode(i, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		b.outs[i] = outs
	}
	for k, h := range sym.Heads {
		v, err := b.output(h)
		if err != nil {
			return nil, fmt.Errorf("%s: head %d: %w", file, k, err)
		}
		vi := b.vals[v]
		vi.Name = v
		vi.Const = nil
		b.g.Outputs = append(b.g.Outputs, vi)
	}
	sort.SliceStable(b.g.Inputs, func(i, j int) bool {
		return b.inputOrder[b.g.Inputs[i].Name] < b.inputOrder[b.g.Inputs[j].Name]
	})
	unused := 0
	names := make([]string, 0, len(b.params))
	for name := range b.params {
		names = append(names, name)
	}
	sort.Strings(names) // notes in a stable order, run after run
	for _, name := range names {
		if !b.used[name] {
			unused++
			continue
		}
		addArrayNotes(b.g, b.params[name])
	}
	if unused > 0 {
		b.g.Meta.Props = append(b.g.Meta.Props, canon.KeyValue{Key: "unused_params", Value: strconv.Itoa(unused)})
	}
	// Weights got their layouts as they were read; this labels the ones the
	// importer made and copies a tensor two consumers read in two layouts.
	canon.AssignLayouts(b.g)
	if err := b.g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: imported graph is invalid: %w", file, err)
	}
	return b.g, nil
}

// lossOps take a label as their second input; at inference the label is
// not needed, so it and anything computing it are dropped.
var lossOps = map[string]bool{
	"SoftmaxOutput": true, "Softmax": true, "LinearRegressionOutput": true,
	"LogisticRegressionOutput": true, "MAERegressionOutput": true, "SVMOutput": true,
}

// reachable marks the nodes the heads depend on, not following labels.
func (b *builder) reachable() (map[int]bool, error) {
	needed := map[int]bool{}
	var stack []int
	for _, h := range b.sym.Heads {
		stack = append(stack, h.Node)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if needed[i] {
			continue
		}
		needed[i] = true
		n := b.sym.Nodes[i]
		ins := n.Inputs
		if lossOps[n.Op] && len(ins) > 1 {
			ins = ins[:1]
		}
		for _, in := range ins {
			stack = append(stack, in.Node)
		}
	}
	return needed, nil
}

// output resolves a node output reference to a canonical value.
func (b *builder) output(e entry) (string, error) {
	n := b.sym.Nodes[e.Node]
	if n.Op == "null" {
		if e.Index != 0 {
			return "", fmt.Errorf("variable %s has one output, output %d requested", n.Name, e.Index)
		}
		return b.variable(e.Node, canon.RoleData, nil, "")
	}
	outs := b.outs[e.Node]
	if e.Index >= len(outs) || outs[e.Index] == "" {
		return "", fmt.Errorf("node %s (%s) has no usable output %d (only the visible outputs of an op can be used at inference)", n.Name, n.Op, e.Index)
	}
	return outs[e.Index], nil
}

// fresh returns name, or name with a numeric suffix when it is in use.
func (b *builder) fresh(name string) string {
	if !b.taken[name] {
		b.taken[name] = true
		return name
	}
	for i := 1; ; i++ {
		c := fmt.Sprintf("%s_%d", name, i)
		if !b.taken[c] {
			b.taken[c] = true
			return c
		}
	}
}

// variable returns the value for a null node: an initializer when the
// params file holds it, otherwise a graph input. want is the shape the
// consumer expects (dims < 0 unknown), used to check a parameter or to type
// a weight that must become an input because no weights were given.
func (b *builder) variable(idx int, role canon.Role, want []int64, consumer string) (string, error) {
	n := b.sym.Nodes[idx]
	name := n.Name
	if a, ok := b.params[name]; ok {
		b.used[name] = true
		if u, ok := b.inits[name]; ok {
			return name, b.checkShape(u.t, want, consumer)
		}
		t := *a.Tensor
		t.Name = name
		if err := b.checkShape(&t, want, consumer); err != nil {
			return "", err
		}
		if lay, ok := canon.LayoutFor(role, len(t.Shape)); ok {
			t.Layout = lay
		}
		b.g.Initializers = append(b.g.Initializers, &t)
		b.inits[name] = &initUse{t: &t, node: consumer}
		b.taken[name] = true
		b.vals[name] = canon.ValueInfo{Name: name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true, Const: &t}
		return name, nil
	}
	if b.params != nil && role != canon.RoleData {
		return "", fmt.Errorf("node %s needs parameter %s, which %s does not hold (wrong params file, or a renamed layer?)", consumer, name, filepath.Base(b.paramsFile))
	}
	if _, ok := b.inputOrder[name]; ok {
		return name, nil
	}
	vi := canon.ValueInfo{Name: name, DType: canon.Float32}
	a := attrs{m: n.merged, node: name, op: "variable"}
	if dt := a.str("__dtype__", ""); dt != "" {
		flag, err := strconv.Atoi(dt)
		if d, ok := mxparams.DTypeOf(int32(flag)); err == nil && ok {
			vi.DType = d
		}
	}
	shape, given := b.opts.ShapeFor(name, len(b.g.Inputs)) // by name or as input #N
	if !given && a.has("__shape__") {
		if s, err := a.ints("__shape__", nil); err == nil && len(s) > 0 {
			shape, given = s, true
			for i, d := range s {
				if d == 0 { // MXNet writes 0 for "unknown"
					shape[i] = -1
				}
			}
		}
	}
	if !given && want != nil {
		shape, given = want, true
	} else if given && len(want) == len(shape) && !b.userShape(name, len(b.g.Inputs)) {
		// Gluon writes 0 for dims it defers; the consumer may know them.
		for i, d := range shape {
			if d < 0 {
				shape[i] = want[i]
			}
		}
	}
	if given {
		vi.RankKnown = true
		vi.Shape = make([]canon.Dim, len(shape))
		for i, d := range shape {
			vi.Shape[i] = canon.Dim{Size: d}
			if d < 0 {
				vi.Shape[i] = canon.Dim{Size: -1}
			}
		}
	}
	b.taken[name] = true
	b.inputOrder[name] = idx
	b.g.Inputs = append(b.g.Inputs, vi)
	b.vals[name] = vi
	return name, nil
}

func (b *builder) userShape(name string, index int) bool {
	_, ok := b.opts.ShapeFor(name, index)
	return ok
}

func (b *builder) checkShape(t *canon.Tensor, want []int64, consumer string) error {
	if want == nil {
		return nil
	}
	ok := len(want) == len(t.Shape)
	for i := 0; ok && i < len(want); i++ {
		ok = want[i] < 0 || want[i] == t.Shape[i]
	}
	if !ok {
		return fmt.Errorf("node %s: parameter %s in %s has shape %s, but the node needs %s", consumer, t.Name, filepath.Base(b.paramsFile), fmtShape(t.Shape), fmtShape(want))
	}
	return nil
}

func fmtShape(s []int64) string {
	parts := make([]string, len(s))
	for i, d := range s {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// emit appends a node and infers its output types.
func (b *builder) emit(name string, op canon.Op, inputs []string, outputs ...string) error {
	n := &canon.Node{Name: name, Op: op, Inputs: inputs, Outputs: outputs}
	in := make([]canon.ValueInfo, len(inputs))
	for i, v := range inputs {
		if v != "" {
			in[i] = b.vals[v]
		}
	}
	res, err := canon.InferNode(n, in)
	if err != nil {
		return fmt.Errorf("node %s (%s): %w", name, op.Kind(), err)
	}
	for i, o := range outputs {
		if o == "" || i >= len(res) {
			continue
		}
		r := res[i]
		r.Name = o
		b.vals[o] = r
		b.taken[o] = true
	}
	b.g.Nodes = append(b.g.Nodes, n)
	return nil
}

// constant adds a small initializer made by the importer.
func (b *builder) constant(t *canon.Tensor) string {
	t.Name = b.fresh(t.Name)
	b.g.Initializers = append(b.g.Initializers, t)
	b.vals[t.Name] = canon.ValueInfo{Name: t.Name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true, Const: t}
	return t.Name
}

// shapeOf returns the inferred dims of a value (nil, false when the rank is
// unknown); unknown dims are -1.
func (b *builder) shapeOf(v string) ([]int64, bool) {
	vi := b.vals[v]
	if !vi.RankKnown {
		return nil, false
	}
	out := make([]int64, len(vi.Shape))
	for i, d := range vi.Shape {
		out[i] = d.Size
		if !d.Known() {
			out[i] = -1
		}
	}
	return out, true
}

// staticShape returns the fully known shape of v or an error telling the
// user to pass input shapes.
func (b *builder) staticShape(v, node, why string) ([]int64, error) {
	s, ok := b.vals[v].StaticShape()
	if !ok {
		return nil, fmt.Errorf("node %s: %s needs the static shape of its input %s, which is unknown; pass the input shapes (--input-shape data=1,3,224,224)", node, why, v)
	}
	return s, nil
}
