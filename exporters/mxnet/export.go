// Package mxnetexport writes canonical graphs as MXNet 1.x checkpoints: a
// `<prefix>-symbol.json` in the NNVM format (nodes with string attrs,
// arg_nodes, node_row_ptr, heads, mxnet_version) and a `<prefix>-0000.params`
// NDArray list with "arg:"/"aux:" names. Ops MXNet cannot express exactly
// are refused, by name, before anything is written.
package mxnetexport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/mxparams"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Version is the mxnet_version written into the symbol (1.3.0).
const Version = 10300

func init() {
	formats.RegisterExporter(&formats.Exporter{
		Name:       "mxnet",
		Extensions: []string{"-symbol.json"},
		Write:      Write,
		Ops:        Ops,
		OutputFiles: func(g *canon.Graph, path string) []string {
			sym, params := Paths(path, g.Name)
			return []string{sym, params}
		},
	})
}

// Paths returns the symbol and params files written for path: "x-symbol.json"
// or "x.json" give "x-symbol.json" + "x-0000.params"; an existing folder gets
// "<folder>/<name>-symbol.json" where name is the graph's name or "model";
// anything else is used as the prefix.
func Paths(path, graphName string) (symbolPath, paramsPath string) {
	prefix := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		// The graph's name comes from the model: it may only name a file
		// inside the folder.
		prefix = filepath.Join(path, formats.PathComponent(graphName, "model"))
	} else if p, ok := strings.CutSuffix(path, "-symbol.json"); ok {
		prefix = p
	} else if p, ok := strings.CutSuffix(path, ".json"); ok {
		prefix = p
	}
	return prefix + "-symbol.json", prefix + "-0000.params"
}

type jsonNode struct {
	Op     string            `json:"op"`
	Name   string            `json:"name"`
	Attrs  map[string]string `json:"attrs,omitempty"`
	Inputs [][3]int          `json:"inputs"`
	// Subgraphs are a control-flow op's graphs (_cond, _foreach).
	Subgraphs []jsonSymbol `json:"subgraphs,omitempty"`
}

type jsonSymbol struct {
	Nodes      []jsonNode       `json:"nodes"`
	ArgNodes   []int            `json:"arg_nodes"`
	NodeRowPtr []int            `json:"node_row_ptr"`
	Heads      [][3]int         `json:"heads"`
	Attrs      map[string][]any `json:"attrs,omitempty"`
}

// ref is one output of an MXNet node.
type ref struct{ node, index int }

type exporter struct {
	g       *canon.Graph
	nodes   []jsonNode
	nout    []int
	refs    map[string]ref
	names   map[string]bool
	consts  map[string]*canon.Tensor // initializers and Constant node values
	pnames  []string                 // params, with arg:/aux: prefix
	ptens   []*canon.Tensor
	aux     map[string]bool // initializers that are auxiliary states
	written map[string]bool
}

// Write exports g to the files Paths names. The params file is streamed
// from the graph's tensors: no second copy of the weights is made.
func Write(g *canon.Graph, path string, opts formats.WriteOptions) error {
	enc, err := encode(g)
	if err != nil {
		return err
	}
	symPath, paramsPath := Paths(path, g.Name)
	fs, err := atomicfile.Create(symPath)
	if err != nil {
		return err
	}
	defer fs.Abort()
	if !enc.hasParams {
		// A graph read without its weights (a symbol-only import): the
		// symbol alone, as MXNet users share architectures. A model that
		// has no weights still gets its (empty) params file, so that the
		// pair loads as a model.
		if _, err := fs.Write(enc.symbol); err != nil {
			return fmt.Errorf("cannot write %s: %w", symPath, err)
		}
		return fs.Commit()
	}
	fp, err := atomicfile.Create(paramsPath)
	if err != nil {
		return err
	}
	defer fp.Abort()
	if _, err := fs.Write(enc.symbol); err != nil {
		return fmt.Errorf("cannot write %s: %w", symPath, err)
	}
	var w io.Writer = fp
	total := tensorBytes(enc.ptens)
	if opts.Progress != nil {
		w = &progressWriter{w: fp, total: total, report: opts.Progress}
	}
	if err := mxparams.Write(w, enc.pnames, enc.ptens); err != nil {
		return fmt.Errorf("cannot write %s: %w", paramsPath, err)
	}
	if opts.Progress != nil {
		opts.Progress(total, total)
	}
	// The pair appears together or not at all: new params beside an old
	// symbol would load as the wrong model.
	return atomicfile.CommitAll(fp, fs)
}

// Encode renders the symbol JSON and the params file in memory; params is
// nil when the graph was read without its weights. Write streams the params
// instead; Encode is for callers that want the bytes.
func Encode(g *canon.Graph) (symbol, params []byte, err error) {
	enc, err := encode(g)
	if err != nil {
		return nil, nil, err
	}
	if !enc.hasParams {
		return enc.symbol, nil, nil
	}
	var pb bytes.Buffer
	if err := mxparams.Write(&pb, enc.pnames, enc.ptens); err != nil {
		return nil, nil, fmt.Errorf("cannot export to MXNet: %w", err)
	}
	return enc.symbol, pb.Bytes(), nil
}

// encoded is an export before the params are written: the symbol JSON and
// the tensors (shared with the graph, not copied) the params file holds.
type encoded struct {
	symbol    []byte
	pnames    []string
	ptens     []*canon.Tensor
	hasParams bool
}

// encode builds the symbol and checks every param the params file will
// hold, so that a failure happens before any file is created.
func encode(g *canon.Graph) (*encoded, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("cannot export an invalid graph: %w", err)
	}
	// A weight shared under several names is one variable here.
	if merged, alias := canon.MergeShared(g); len(alias) > 0 {
		if err := merged.Validate(); err != nil {
			return nil, fmt.Errorf("cannot export to MXNet: %w", err)
		}
		g = merged
	}
	// Kinds MXNet has no op for are written as canon's expansion of them.
	expanded, _, err := canon.Decompose(g, writesDirectly)
	if err != nil {
		return nil, fmt.Errorf("cannot export to MXNet: %w", err)
	}
	g = expanded
	if g, err = foldRecurrentWeights(g); err != nil {
		return nil, fmt.Errorf("cannot export to MXNet: %w", err)
	}
	e := &exporter{g: g, refs: map[string]ref{}, names: map[string]bool{}, consts: map[string]*canon.Tensor{}, aux: map[string]bool{}, written: map[string]bool{}}
	for _, t := range g.Initializers {
		e.consts[t.Name] = t
	}
	for _, n := range g.Nodes {
		if c, ok := n.Op.(*canon.Constant); ok && len(n.Outputs) == 1 {
			t := *c.Value
			t.Name = n.Outputs[0]
			e.consts[n.Outputs[0]] = &t
		}
		if _, ok := n.Op.(*canon.BatchNorm); ok {
			e.aux[n.Inputs[3]], e.aux[n.Inputs[4]] = true, true
		}
	}
	for _, v := range g.Inputs {
		e.variable(v.Name, inputAttrs(v))
	}
	if n := firstQuantizedLack(g); n != nil {
		return nil, fmt.Errorf("cannot export to MXNet: quantized model: node %s (%s): %w", n.Name, n.Op.Kind(), e.node(n))
	}
	for _, n := range g.Nodes {
		if err := e.node(n); err != nil {
			return nil, fmt.Errorf("cannot export to MXNet: node %s (%s): %w", n.Name, n.Op.Kind(), err)
		}
	}
	// After the nodes, so that a string op is refused by its name.
	if v := canon.StringValue(g); v != "" {
		return nil, fmt.Errorf("cannot export to MXNet: value %q is a string tensor, and MXNet NDArrays hold numbers only; export to ONNX instead", v)
	}
	// Weights no node reads (a state dict's, which has no graph) still go
	// to the params file, as mx.nd.save would store them: dropping them
	// would lose the model.
	read := map[string]bool{}
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			read[in] = true
		}
	}
	for _, o := range g.Outputs {
		read[o.Name] = true
	}
	for _, t := range g.Initializers {
		if !read[t.Name] {
			e.pnames = append(e.pnames, "arg:"+t.Name)
			e.ptens = append(e.ptens, t)
		}
	}
	var heads [][3]int
	for _, o := range g.Outputs {
		r, err := e.value(o.Name)
		if err != nil {
			return nil, fmt.Errorf("cannot export to MXNet: graph output %s: %w", o.Name, err)
		}
		heads = append(heads, [3]int{r.node, r.index, 0})
	}
	js := jsonSymbol{Nodes: e.nodes, ArgNodes: []int{}, NodeRowPtr: []int{0}, Heads: heads,
		Attrs: map[string][]any{"mxnet_version": {"int", Version}}}
	for i, n := range e.nodes {
		if n.Op == "null" {
			js.ArgNodes = append(js.ArgNodes, i)
		}
		js.NodeRowPtr = append(js.NodeRowPtr, js.NodeRowPtr[i]+e.nout[i])
	}
	for i := range js.Nodes {
		if js.Nodes[i].Inputs == nil {
			js.Nodes[i].Inputs = [][3]int{}
		}
	}
	symbol, err := json.MarshalIndent(js, "", "  ")
	if err != nil {
		return nil, err
	}
	enc := &encoded{symbol: symbol, pnames: e.pnames, ptens: e.ptens, hasParams: !g.Meta.WeightsMissing}
	if enc.hasParams {
		if err := mxparams.CheckWritable(e.pnames, e.ptens); err != nil {
			return nil, fmt.Errorf("cannot export to MXNet: %w", err)
		}
	}
	return enc, nil
}

func inputAttrs(v canon.ValueInfo) map[string]string {
	m := map[string]string{}
	if s, ok := v.StaticShape(); ok {
		m["__shape__"] = tuple(s)
	}
	if v.DType != canon.Float32 {
		if f, ok := mxparams.TypeFlag(v.DType); ok {
			m["__dtype__"] = strconv.Itoa(int(f))
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

func (e *exporter) unique(name string) string {
	if !e.names[name] {
		e.names[name] = true
		return name
	}
	for i := 1; ; i++ {
		c := fmt.Sprintf("%s_%d", name, i)
		if !e.names[c] {
			e.names[c] = true
			return c
		}
	}
}

// add appends an op node with nout outputs and returns its index.
func (e *exporter) add(op, name string, attrs map[string]string, nout int, inputs ...ref) int {
	in := make([][3]int, len(inputs))
	for i, r := range inputs {
		in[i] = [3]int{r.node, r.index, 0}
	}
	e.nodes = append(e.nodes, jsonNode{Op: op, Name: e.unique(name), Attrs: attrs, Inputs: in})
	e.nout = append(e.nout, nout)
	return len(e.nodes) - 1
}

func (e *exporter) variable(name string, attrs map[string]string) ref {
	if r, ok := e.refs[name]; ok {
		return r
	}
	e.nodes = append(e.nodes, jsonNode{Op: "null", Name: e.unique(name), Attrs: attrs})
	e.nout = append(e.nout, 1)
	r := ref{len(e.nodes) - 1, 0}
	e.refs[name] = r
	return r
}

// value returns the MXNet output holding a canonical value; constants
// become parameters on first use.
func (e *exporter) value(name string) (ref, error) {
	if r, ok := e.refs[name]; ok {
		return r, nil
	}
	if t, ok := e.consts[name]; ok {
		return e.param(name, t)
	}
	return ref{}, fmt.Errorf("value %s is not defined", name)
}

// param writes t as a parameter named name (arg: or aux:).
func (e *exporter) param(name string, t *canon.Tensor) (ref, error) {
	if r, ok := e.refs[name]; ok {
		return r, nil
	}
	if len(t.Shape) == 0 {
		return ref{}, fmt.Errorf("scalar constant %s can only be exported as the scalar of an arithmetic op; MXNet params cannot hold 0-D arrays", name)
	}
	if _, ok := mxparams.TypeFlag(t.DType); !ok {
		return ref{}, fmt.Errorf("constant %s has dtype %s, which MXNet cannot store", name, t.DType)
	}
	prefix := "arg:"
	if e.aux[name] {
		prefix = "aux:"
	}
	r := e.variable(name, nil)
	e.pnames = append(e.pnames, prefix+name)
	e.ptens = append(e.ptens, t)
	return r, nil
}

func (e *exporter) values(names ...string) ([]ref, error) {
	out := make([]ref, 0, len(names))
	for _, n := range names {
		if n == "" {
			continue
		}
		r, err := e.value(n)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// weight returns a Convolution, Deconvolution or FullyConnected weight.
// MXNet stores them in the layouts canon.LayoutFor gives their roles
// (OI+spatial, IO+spatial, OI), which a validated graph's constant
// weights already carry, so they are written as they are.
func (e *exporter) weight(name string) (ref, error) { return e.value(name) }

// finish records the single output of the node just added under value.
func (e *exporter) finish(value string, idx int) error {
	e.refs[value] = ref{idx, 0}
	return nil
}

func tuple(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(x, 10)
	}
	if len(v) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func f32(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }

func boolean(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func (e *exporter) shape(v string) ([]int64, bool) {
	return e.g.Values.Get(v).StaticShape()
}

func (e *exporter) rank(v string) (int, bool) {
	vi := e.g.Values.Get(v)
	return len(vi.Shape), vi.RankKnown
}

func allEqual(v []int64, x int64) bool {
	for _, d := range v {
		if d != x {
			return false
		}
	}
	return true
}

// opWriter is one entry of the exporter's op table: the MXNet ops a
// canonical kind is written as (the coverage detail) and the function that
// writes a node of that kind.
type opWriter struct {
	mx    string
	write func(e *exporter, n *canon.Node) error
}

// writers is the exporter's op table, keyed by canonical op kind.
var writers map[string]opWriter

// lacks names the canonical kinds MXNet symbols cannot express, with the
// reason. Every registered kind is currently written (some as an exact
// expansion into several MXNet ops), so it is empty.
var lacks = map[string]string{}

// activationTypes are the canonical unary functions MXNet's Activation
// computes, by act_type.
var activationTypes = map[canon.UnaryFn]string{
	canon.Relu: "relu", canon.Sigmoid: "sigmoid", canon.Tanh: "tanh", canon.Softplus: "softrelu", canon.Softsign: "softsign",
}

func init() {
	// oneOp writes a node as the single MXNet op mx over its first input;
	// detail qualifies it in the coverage.
	oneOp := func(mx, detail string, attrs func(n *canon.Node) map[string]string) opWriter {
		return opWriter{strings.TrimSpace(mx + " " + detail), func(e *exporter, n *canon.Node) error { return e.single(n, mx, attrs(n), n.Inputs[0]) }}
	}
	optable.Add(&writers, map[string]opWriter{
		"Constant": {"a parameter where it is used", func(*exporter, *canon.Node) error { return nil }},
		"Conv": {"Convolution (Pad before it for asymmetric pads)", func(e *exporter, n *canon.Node) error {
			return e.conv(n, n.Op.(*canon.Conv))
		}},
		"ConvTranspose": {"Deconvolution (slice_axis after it for crops MXNet's pad and adj cannot express)", func(e *exporter, n *canon.Node) error {
			return e.deconv(n, n.Op.(*canon.ConvTranspose))
		}},
		"BatchNormalization": {"BatchNorm (fix_gamma=False, use_global_stats=True)", func(e *exporter, n *canon.Node) error {
			in, err := e.values(n.Inputs...)
			if err != nil {
				return err
			}
			op := n.Op.(*canon.BatchNorm)
			attrs := map[string]string{"eps": f32(op.Epsilon), "fix_gamma": "False", "use_global_stats": "True", "momentum": "0.9", "axis": "1"}
			return e.finish(n.Outputs[0], e.add("BatchNorm", n.Outputs[0], attrs, 3, in...))
		}},
		"Linear": {"FullyConnected (alpha and beta 1)", func(e *exporter, n *canon.Node) error { return e.linear(n, n.Op.(*canon.Linear)) }},
		"MatMul": {"dot (second input of rank 1 or 2), batch_dot (3-D, equal batch; higher ranks with equal static batch axes flattened to 3-D)", (*exporter).matmul},
		"LeakyRelu": oneOp("LeakyReLU", "act_type=leaky", func(n *canon.Node) map[string]string {
			return map[string]string{"act_type": "leaky", "slope": f32(n.Op.(*canon.LeakyRelu).Alpha)}
		}),
		"Elu": oneOp("LeakyReLU", "act_type=elu", func(n *canon.Node) map[string]string {
			return map[string]string{"act_type": "elu", "slope": f32(n.Op.(*canon.Elu).Alpha)}
		}),
		"Selu":      {"LeakyReLU act_type=selu (other constants: elu then _mul_scalar)", (*exporter).selu},
		"Gelu":      {"LeakyReLU act_type=gelu (exact); the tanh form as canon's expansion (elemwise_mul, _mul_scalar, _plus_scalar, Activation tanh)", (*exporter).gelu},
		"PRelu":     {"LeakyReLU act_type=prelu (per-channel or single slope)", (*exporter).prelu},
		"HardSwish": {"x·hard_sigmoid(x, alpha=1/6, beta=1/2) with elemwise_mul", (*exporter).hardSwish},
		"Clip": oneOp("clip", "", func(n *canon.Node) map[string]string {
			op := n.Op.(*canon.Clip)
			bound := func(v float32) string {
				// MXNet has no infinite bounds; the float32 extremes clip nothing.
				if math.IsInf(float64(v), 0) {
					return strconv.FormatFloat(math.Copysign(math.MaxFloat32, float64(v)), 'g', -1, 32)
				}
				return f32(v)
			}
			return map[string]string{"a_min": bound(op.Min), "a_max": bound(op.Max)}
		}),
		"HardSigmoid": oneOp("hard_sigmoid", "", func(n *canon.Node) map[string]string {
			op := n.Op.(*canon.HardSigmoid)
			return map[string]string{"alpha": f32(op.Alpha), "beta": f32(op.Beta)}
		}),
		"Softmax": oneOp("softmax", "", func(n *canon.Node) map[string]string {
			return map[string]string{"axis": strconv.FormatInt(n.Op.(*canon.Softmax).Axis, 10)}
		}),
		"MaxPool": {"Pooling pool_type=max (slice_axis after it for larger begin pads); no Indices output", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.MaxPool)
			if len(n.Outputs) > 1 && n.Outputs[1] != "" {
				return fmt.Errorf("MXNet's Pooling has no indices output; the MaxPool's Indices cannot be written")
			}
			return e.pool(n, "max", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, nil)
		}},
		"AveragePool": {"Pooling pool_type=avg (slice_axis after it for larger begin pads)", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.AveragePool)
			cip := op.CountIncludePad
			return e.pool(n, "avg", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, &cip)
		}},
		"GlobalAveragePool": {"Pooling global_pool=True pool_type=avg", func(e *exporter, n *canon.Node) error { return e.globalPool(n, "avg") }},
		"GlobalMaxPool":     {"Pooling global_pool=True pool_type=max", func(e *exporter, n *canon.Node) error { return e.globalPool(n, "max") }},
		"ReduceMean": oneOp("mean", "", func(n *canon.Node) map[string]string {
			op := n.Op.(*canon.Reduce)
			attrs := map[string]string{"keepdims": boolean(op.KeepDims)}
			if len(op.Axes) > 0 {
				attrs["axis"] = tuple(op.Axes)
			}
			return attrs
		}),
		"Concat": {"Concat", func(e *exporter, n *canon.Node) error {
			attrs := map[string]string{"dim": strconv.FormatInt(n.Op.(*canon.Concat).Axis, 10), "num_args": strconv.Itoa(len(n.Inputs))}
			return e.single(n, "Concat", attrs, n.Inputs...)
		}},
		"Split":   {"SliceChannel (equal parts), slice_axis (other sizes)", func(e *exporter, n *canon.Node) error { return e.split(n, n.Op.(*canon.Split)) }},
		"Reshape": {"Reshape (constant shapes)", func(e *exporter, n *canon.Node) error { return e.reshape(n, n.Op.(*canon.Reshape)) }},
		"Flatten": {"Flatten (axis 1), Reshape (other axes)", func(e *exporter, n *canon.Node) error { return e.flatten(n, n.Op.(*canon.Flatten)) }},
		"Transpose": oneOp("transpose", "", func(n *canon.Node) map[string]string {
			return map[string]string{"axes": tuple(n.Op.(*canon.Transpose).Perm)}
		}),
		"Squeeze": oneOp("squeeze", "", func(n *canon.Node) map[string]string {
			if op := n.Op.(*canon.Squeeze); len(op.Axes) > 0 {
				return map[string]string{"axis": tuple(op.Axes)}
			}
			return nil
		}),
		"Unsqueeze": {"expand_dims, one per axis", func(e *exporter, n *canon.Node) error { return e.unsqueeze(n, n.Op.(*canon.Unsqueeze)) }},
		"Pad":       {"Pad (4-D and 5-D, spatial axes)", func(e *exporter, n *canon.Node) error { return e.pad(n, n.Op.(*canon.Pad)) }},
		"Slice":     {"slice_axis (step 1), slice (positive steps)", func(e *exporter, n *canon.Node) error { return e.slice(n, n.Op.(*canon.Slice)) }},
		"Gather": {"take mode=wrap; a scalar constant index as slice_axis + squeeze", func(e *exporter, n *canon.Node) error {
			if t := e.consts[n.Inputs[1]]; t != nil && len(t.Shape) == 0 {
				return e.gatherScalar(n, t)
			}
			attrs := map[string]string{"axis": strconv.FormatInt(n.Op.(*canon.Gather).Axis, 10), "mode": "wrap"}
			return e.single(n, "take", attrs, n.Inputs...)
		}},
		"Shape":    {"shape_array (slice_axis after it for a sub-range)", func(e *exporter, n *canon.Node) error { return e.shapeOf(n, n.Op.(*canon.ShapeOf)) }},
		"Identity": oneOp("_copy", "", func(*canon.Node) map[string]string { return nil }),
		"Dropout": {"Dropout (without the mask output)", func(e *exporter, n *canon.Node) error {
			if len(n.Outputs) > 1 && n.Outputs[1] != "" {
				return fmt.Errorf("the Dropout mask output is not supported")
			}
			in, err := e.values(n.Inputs[0])
			if err != nil {
				return err
			}
			return e.finish(n.Outputs[0], e.add("Dropout", n.Outputs[0], map[string]string{"p": f32(n.Op.(*canon.Dropout).Ratio)}, 2, in...))
		}},
		"Resize": {"UpSampling sample_type=nearest (integer factor on H and W); _contrib_BilinearResize2D (linear, half_pixel or align_corners, H and W)", func(e *exporter, n *canon.Node) error { return e.resize(n, n.Op.(*canon.Resize)) }},
	})
	for fn := canon.Add; fn <= canon.Div; fn++ {
		writers[fn.String()] = opWriter{binaryOps[fn].broadcast + ", " + binaryOps[fn].scalar + " (scalar operand)", func(e *exporter, n *canon.Node) error {
			return e.binary(n, n.Op.(*canon.Binary))
		}}
	}
	for fn, act := range activationTypes {
		writers[fn.String()] = oneOp("Activation", "act_type="+act, func(*canon.Node) map[string]string {
			return map[string]string{"act_type": act}
		})
	}
}

// writesDirectly reports whether node n is written by its writer rather
// than as canon's expansion of it: a kind without a writer (or Gelu's tanh
// form, which MXNet 1.x lacks) is expanded when canon has an expansion.
func writesDirectly(n *canon.Node, _ func(string) canon.ValueInfo) bool {
	d := canon.DefOf(n.Op)
	if d == nil || d.Decompose == nil {
		return true // written, or refused with the writer's reason
	}
	if _, refused := lacks[d.Kind]; refused {
		return true // refused with the table's reason (its expansion would not write either)
	}
	if g, ok := n.Op.(*canon.Gelu); ok && g.Approximate == canon.GeluTanh {
		return false
	}
	_, ok := writers[n.Op.Kind()]
	return ok
}

// Ops is the exporter's coverage, derived from writers and lacks; a kind
// without a writer that canon can expand is written as its expansion.
func Ops() canon.Coverage {
	cov := canon.Coverage{}
	for _, d := range canon.Ops() {
		if _, ok := writers[d.Kind]; !ok && d.Decompose != nil {
			cov[d.Kind] = canon.Handles("written as canon's expansion into other ops (see the op's Decompose)")
		}
	}
	for k, w := range writers {
		cov[k] = canon.Handles(w.mx)
	}
	for k, why := range lacks {
		cov[k] = canon.Lacks(why)
	}
	return cov
}

// node writes one canonical node by looking its kind up in writers.
func (e *exporter) node(n *canon.Node) error {
	kind := n.Op.Kind()
	w, ok := writers[kind]
	if !ok {
		if why, ok := lacks[kind]; ok {
			return fmt.Errorf("MXNet cannot express %s: %s", kind, why)
		}
		return fmt.Errorf("no MXNet equivalent for canonical op %s (see `modelbridge ops`)", kind)
	}
	// MXNet symbols take every parameter as an attribute.
	if canon.HasRuntimeParams(n) {
		for _, i := range canon.ParamInputs(n.Op) {
			if i < len(n.Inputs) && n.Inputs[i] != "" {
				return fmt.Errorf("parameter %s arrives as input %q; MXNet symbols take it only as a constant attribute", n.Op.Signature().Inputs[i].Name, n.Inputs[i])
			}
		}
	}
	return w.write(e, n)
}

// single writes node n as one MXNet op over inputs, with one output.
func (e *exporter) single(n *canon.Node, op string, attrs map[string]string, inputs ...string) error {
	in, err := e.values(inputs...)
	if err != nil {
		return err
	}
	return e.finish(n.Outputs[0], e.add(op, n.Outputs[0], attrs, 1, in...))
}

func (e *exporter) matmul(n *canon.Node) error {
	ra, ok1 := e.rank(n.Inputs[0])
	rb, ok2 := e.rank(n.Inputs[1])
	switch {
	case !ok1 || !ok2:
	case rb <= 2 && !(ra == 1 && rb == 1):
		// dot contracts a's last axis with b's first, which is NumPy's
		// matmul when b has rank 1 or 2.
		return e.single(n, "dot", nil, n.Inputs...)
	case ra == 3 && rb == 3:
		sa, _ := e.shape(n.Inputs[0])
		sb, _ := e.shape(n.Inputs[1])
		if sa != nil && sb != nil && sa[0] == sb[0] {
			return e.single(n, "batch_dot", nil, n.Inputs...)
		}
	case ra == rb && ra > 3:
		return e.stackedMatmul(n.Inputs[0], n.Inputs[1], n.Outputs[0])
	case ra == 2 && rb >= 3:
		return e.leftMatmul(n.Inputs[0], n.Inputs[1], n.Outputs[0], rb)
	}
	return fmt.Errorf("MatMul is exported when the second input has rank 1 or 2 (dot), when the first is a matrix, or for equal-batch 3-D inputs (batch_dot) only")
}

func (e *exporter) selu(n *canon.Node) error {
	op := n.Op.(*canon.Selu)
	// MXNet's SELU has fixed constants; other ones are written as
	// Gamma * elu(Alpha), which is the same function.
	if op.Alpha == canon.SeluAlpha && op.Gamma == canon.SeluGamma {
		return e.single(n, "LeakyReLU", map[string]string{"act_type": "selu"}, n.Inputs[0])
	}
	return e.scaledElu(n, op)
}

// gelu writes the exact form as LeakyReLU act_type=gelu, which is MXNet
// 1.x's erf form; the tanh form, which MXNet lacks, reaches here only
// expanded (writesDirectly).
func (e *exporter) gelu(n *canon.Node) error {
	if a := n.Op.(*canon.Gelu).Approximate; a != canon.GeluExact {
		return fmt.Errorf("Gelu approximation %s is written as its expansion, not as one MXNet op", a)
	}
	return e.single(n, "LeakyReLU", map[string]string{"act_type": "gelu"}, n.Inputs[0])
}

// hardSwish writes x·HardSigmoid(x) with HardSwish's alpha 1/6 and beta 1/2.
func (e *exporter) hardSwish(n *canon.Node) error {
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	hs := ref{e.add("hard_sigmoid", out+"_gate", map[string]string{"alpha": f32(1.0 / 6), "beta": "0.5"}, 1, x), 0}
	return e.finish(out, e.add("elemwise_mul", out, nil, 1, x, hs))
}

func (e *exporter) globalPool(n *canon.Node, poolType string) error {
	nd := 2
	if r, ok := e.rank(n.Inputs[0]); ok && r > 2 {
		nd = r - 2
	}
	return e.single(n, "Pooling", map[string]string{"global_pool": "True", "kernel": tuple(ones(nd)), "pool_type": poolType}, n.Inputs[0])
}

func (e *exporter) reshape(n *canon.Node, op *canon.Reshape) error {
	if op.AllowZero && slices.Contains(op.Shape, 0) {
		return fmt.Errorf("Reshape with allowzero and a 0 dim has no MXNet equivalent")
	}
	return e.single(n, "Reshape", map[string]string{"shape": tuple(op.Shape)}, n.Inputs[0])
}

func (e *exporter) flatten(n *canon.Node, op *canon.Flatten) error {
	switch op.Axis {
	case 1:
		return e.single(n, "Flatten", nil, n.Inputs[0])
	case 0:
		return e.single(n, "Reshape", map[string]string{"shape": "(1, -1)"}, n.Inputs[0])
	}
	s, ok := e.shape(n.Outputs[0])
	if !ok {
		return fmt.Errorf("Flatten on axis %d needs static shapes", op.Axis)
	}
	return e.single(n, "Reshape", map[string]string{"shape": tuple(s)}, n.Inputs[0])
}

// shapeOf writes shape_array, sliced when ShapeOf covers part of the axes.
func (e *exporter) shapeOf(n *canon.Node, op *canon.ShapeOf) error {
	if op.Start == 0 && op.End == math.MaxInt64 {
		return e.single(n, "shape_array", nil, n.Inputs[0])
	}
	r, ok := e.rank(n.Inputs[0])
	if !ok {
		return fmt.Errorf("a Shape of axes [%d, %d) needs the input rank", op.Start, op.End)
	}
	clamp := func(v int64) int64 {
		if v < 0 {
			v += int64(r)
		}
		return min(max(v, 0), int64(r))
	}
	lo, hi := clamp(op.Start), clamp(op.End)
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	s := ref{e.add("shape_array", out+"_all", nil, 1, x), 0}
	attrs := map[string]string{"axis": "0", "begin": strconv.FormatInt(lo, 10), "end": strconv.FormatInt(max(hi, lo), 10)}
	return e.finish(out, e.add("slice_axis", out, attrs, 1, s))
}

func ones(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func (e *exporter) conv(n *canon.Node, op *canon.Conv) error {
	w := e.g.Values.Get(n.Inputs[1])
	ws, ok := w.StaticShape()
	if !ok {
		return fmt.Errorf("the weight shape must be known")
	}
	nd := len(ws) - 2
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	pad := op.PadsBegin
	if !slices.Equal(op.PadsBegin, op.PadsEnd) {
		// MXNet pads symmetrically; explicit zero padding covers the rest.
		if nd != 2 && nd != 3 {
			return fmt.Errorf("asymmetric padding %v/%v can only be exported for 2-D and 3-D convolutions", op.PadsBegin, op.PadsEnd)
		}
		pw := make([]int64, 4, 4+2*nd)
		for i := 0; i < nd; i++ {
			pw = append(pw, op.PadsBegin[i], op.PadsEnd[i])
		}
		x = ref{e.add("Pad", n.Outputs[0]+"_pad", map[string]string{"mode": "constant", "pad_width": tuple(pw), "constant_value": "0"}, 1, x), 0}
		pad = make([]int64, nd)
	}
	wr, err := e.weight(n.Inputs[1])
	if err != nil {
		return err
	}
	in := []ref{x, wr}
	in, noBias, err := e.appendBias(n, in)
	if err != nil {
		return err
	}
	attrs := map[string]string{
		"kernel": tuple(ws[2:]), "stride": tuple(op.Strides), "dilate": tuple(op.Dilations), "pad": tuple(pad),
		"num_filter": strconv.FormatInt(ws[0], 10), "num_group": strconv.FormatInt(op.Group, 10), "no_bias": boolean(noBias),
	}
	return e.finish(n.Outputs[0], e.add("Convolution", n.Outputs[0], attrs, 1, in...))
}

func (e *exporter) deconv(n *canon.Node, op *canon.ConvTranspose) error {
	ws, ok := e.g.Values.Get(n.Inputs[1]).StaticShape()
	if !ok {
		return fmt.Errorf("the weight shape must be known")
	}
	nd := len(ws) - 2
	// MXNet crops pad on both sides of the full output and then adds adj
	// rows at the end, so begin padding is pad and the end crop is
	// pad - adj. Where that needs an adj MXNet refuses (0 <= adj < stride),
	// the axis is written uncropped (pad 0, the smallest adj that keeps
	// every wanted row) and slice_axis crops it.
	pad, adj := make([]int64, nd), make([]int64, nd)
	type crop struct{ axis, begin, end int64 }
	var crops []crop
	for i := 0; i < nd; i++ {
		op0 := op.OutputPadding[i]
		limit := max(op.Strides[i], op.Dilations[i])
		if a := op0 + op.PadsBegin[i] - op.PadsEnd[i]; a >= 0 && a < limit {
			pad[i], adj[i] = op.PadsBegin[i], a
			continue
		}
		adj[i] = max(0, op0-op.PadsEnd[i])
		// Rows [PadsBegin, full+op0-PadsEnd) of the full+adj rows written;
		// the end counts back from the last row.
		crops = append(crops, crop{int64(2 + i), op.PadsBegin[i], op0 - op.PadsEnd[i] - adj[i]})
	}
	in, err := e.values(n.Inputs[0])
	if err != nil {
		return err
	}
	wr, err := e.weight(n.Inputs[1])
	if err != nil {
		return err
	}
	in = append(in, wr)
	in, noBias, err := e.appendBias(n, in)
	if err != nil {
		return err
	}
	attrs := map[string]string{
		"kernel": tuple(ws[2:]), "stride": tuple(op.Strides), "dilate": tuple(op.Dilations), "pad": tuple(pad),
		"adj": tuple(adj), "num_filter": strconv.FormatInt(ws[1]*op.Group, 10), "num_group": strconv.FormatInt(op.Group, 10),
		"no_bias": boolean(noBias),
	}
	out := n.Outputs[0]
	name := out
	if len(crops) > 0 {
		name = out + "_uncropped"
	}
	cur := ref{e.add("Deconvolution", name, attrs, 1, in...), 0}
	for k, c := range crops {
		name := out
		if k < len(crops)-1 {
			name = fmt.Sprintf("%s_crop%d", out, k)
		}
		end := "None"
		if c.end < 0 {
			end = strconv.FormatInt(c.end, 10)
		}
		attrs := map[string]string{"axis": strconv.FormatInt(c.axis, 10), "begin": strconv.FormatInt(c.begin, 10), "end": end}
		cur = ref{e.add("slice_axis", name, attrs, 1, cur), 0}
	}
	e.refs[out] = cur
	return nil
}

// appendBias appends a conv node's optional bias (input 2) to in and
// reports whether it was absent, for MXNet's no_bias attribute.
func (e *exporter) appendBias(n *canon.Node, in []ref) ([]ref, bool, error) {
	if len(n.Inputs) < 3 || n.Inputs[2] == "" {
		return in, true, nil
	}
	b, err := e.value(n.Inputs[2])
	if err != nil {
		return nil, false, err
	}
	return append(in, b), false, nil
}

func (e *exporter) linear(n *canon.Node, op *canon.Linear) error {
	hasC := len(n.Inputs) > 2 && n.Inputs[2] != ""
	if op.Alpha != 1 || (hasC && op.Beta != 1) {
		return fmt.Errorf("alpha %g / beta %g: FullyConnected has no scaling (fold it first)", op.Alpha, op.Beta)
	}
	ws, ok := e.g.Values.Get(n.Inputs[1]).StaticShape()
	if !ok {
		return fmt.Errorf("the weight shape must be known")
	}
	in, err := e.values(n.Inputs[0])
	if err != nil {
		return err
	}
	wr, err := e.weight(n.Inputs[1])
	if err != nil {
		return err
	}
	in = append(in, wr)
	if hasC {
		cs, ok := e.g.Values.Get(n.Inputs[2]).StaticShape()
		switch {
		case ok && len(cs) == 1 && cs[0] == ws[0]:
			r, err := e.value(n.Inputs[2])
			if err != nil {
				return err
			}
			in = append(in, r)
		case ok && len(cs) == 2 && cs[0] == 1 && cs[1] == ws[0] && e.consts[n.Inputs[2]] != nil:
			t := *e.consts[n.Inputs[2]]
			t.Shape = []int64{ws[0]}
			r, err := e.param(n.Inputs[2], &t)
			if err != nil {
				return err
			}
			in = append(in, r)
		default:
			return fmt.Errorf("bias %s of shape %v is not a per-output vector; FullyConnected cannot add it", n.Inputs[2], cs)
		}
	}
	attrs := map[string]string{"num_hidden": strconv.FormatInt(ws[0], 10), "no_bias": boolean(!hasC), "flatten": "True"}
	return e.finish(n.Outputs[0], e.add("FullyConnected", n.Outputs[0], attrs, 1, in...))
}

// scalarOf returns the value of a one-element constant that broadcasting
// with other leaves other's shape unchanged.
func (e *exporter) scalarOf(c, other, out string) (string, bool) {
	t, ok := e.consts[c]
	if !ok || t.NumElements() != 1 {
		return "", false
	}
	os, ok1 := e.g.Values.Get(other).StaticShape()
	rs, ok2 := e.g.Values.Get(out).StaticShape()
	if !(len(t.Shape) == 0 || ok1 && ok2 && slices.Equal(os, rs)) {
		return "", false
	}
	if t.DType != e.g.Values.Get(other).DType {
		return "", false
	}
	switch t.DType {
	case canon.Float64:
		v, _ := t.Float64s()
		return strconv.FormatFloat(v[0], 'g', -1, 64), true
	case canon.Float32, canon.Float16, canon.BFloat16:
		v, _ := t.Float64s()
		return strconv.FormatFloat(v[0], 'g', -1, 32), true
	}
	v, err := t.Int64s()
	if err != nil {
		return "", false
	}
	return strconv.FormatInt(v[0], 10), true
}

// binaryOps are the MXNet ops of each arithmetic function: broadcast for
// two tensors, scalar for tensor op scalar, rscalar for scalar op tensor.
var binaryOps = map[canon.BinaryFn]struct{ broadcast, scalar, rscalar string }{
	canon.Add: {"broadcast_add", "_plus_scalar", "_plus_scalar"},
	canon.Sub: {"broadcast_sub", "_minus_scalar", "_rminus_scalar"},
	canon.Mul: {"broadcast_mul", "_mul_scalar", "_mul_scalar"},
	canon.Div: {"broadcast_div", "_div_scalar", "_rdiv_scalar"},
}

func (e *exporter) binary(n *canon.Node, op *canon.Binary) error {
	a, b, out := n.Inputs[0], n.Inputs[1], n.Outputs[0]
	ops := binaryOps[op.Fn]
	if s, ok := e.scalarOf(b, a, out); ok {
		return e.single(n, ops.scalar, map[string]string{"scalar": s}, a)
	}
	if s, ok := e.scalarOf(a, b, out); ok {
		return e.single(n, ops.rscalar, map[string]string{"scalar": s}, b)
	}
	return e.single(n, ops.broadcast, nil, a, b)
}

func (e *exporter) prelu(n *canon.Node) error {
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	xr, _ := e.rank(n.Inputs[0])
	ss, ok := e.g.Values.Get(n.Inputs[1]).StaticShape()
	if !ok {
		return fmt.Errorf("the slope shape must be known")
	}
	// MXNet applies gamma (C,) along axis 1 or a (1,) gamma everywhere.
	perChannel := len(ss) == xr-1 && len(ss) >= 1 && allEqual(ss[1:], 1)
	single := canon.NumElements(ss) == 1 && len(ss) <= xr
	if !perChannel && !single {
		return fmt.Errorf("slope of shape %v is not per-channel; MXNet PReLU cannot express it", ss)
	}
	var g ref
	if t, ok := e.consts[n.Inputs[1]]; ok {
		c := *t
		c.Shape = []int64{canon.NumElements(ss)}
		c.Layout = ""
		if g, err = e.param(n.Inputs[1], &c); err != nil {
			return err
		}
	} else {
		s, err := e.value(n.Inputs[1])
		if err != nil {
			return err
		}
		g = ref{e.add("Reshape", n.Outputs[0]+"_gamma", map[string]string{"shape": "(-1,)"}, 1, s), 0}
	}
	return e.finish(n.Outputs[0], e.add("LeakyReLU", n.Outputs[0], map[string]string{"act_type": "prelu"}, 1, x, g))
}

func (e *exporter) pool(n *canon.Node, kind string, kernel, strides, dil, pb, pe []int64, ceil bool, countPad *bool) error {
	if !allEqual(dil, 1) && len(dil) > 0 {
		return fmt.Errorf("dilated pooling (%v) has no MXNet equivalent", dil)
	}
	// MXNet pads symmetrically. Begin pads at least as large as the end
	// pads put the windows where the canonical op has them; the extra end
	// padding only adds windows after the last one, which slice_axis drops.
	// Every kept window lies inside the canonical padded extent, so the
	// max and both average divisors agree.
	var trim []int64 // canonical output size per spatial axis, when cropped
	if !slices.Equal(pb, pe) {
		os, ok := e.shape(n.Outputs[0])
		is, ok2 := e.shape(n.Inputs[0])
		if ceil || !ok || !ok2 {
			return fmt.Errorf("asymmetric pooling pads %v/%v are exported only without ceil mode and with static shapes", pb, pe)
		}
		for i := range pb {
			if pb[i] < pe[i] {
				return fmt.Errorf("asymmetric pooling pads %v/%v: MXNet pads both sides alike, so end pads larger than begin pads have no MXNet equivalent", pb, pe)
			}
		}
		trim = make([]int64, len(pb))
		for i := range pb {
			if mx := (is[2+i]+2*pb[i]-kernel[i])/strides[i] + 1; mx != os[2+i] {
				trim[i] = os[2+i]
			}
		}
	}
	if ceil {
		// MXNet's "full" keeps a last window that starts in the end padding;
		// the canonical ceil mode drops it. Refuse where the two differ.
		if s, ok := e.shape(n.Inputs[0]); ok && len(s) == len(kernel)+2 {
			for i, k := range kernel {
				span := s[2+i] + 2*pb[i] - k
				if pb[i] > 0 && span >= 0 && (span+strides[i]-1)/strides[i]*strides[i] >= s[2+i]+pb[i] {
					return fmt.Errorf("ceil-mode pooling whose last window lies in the padding has a different output size in MXNet")
				}
			}
		} else if !allEqual(pb, 0) {
			return fmt.Errorf("ceil-mode pooling with padding needs a static input shape to check MXNet's output size")
		}
	}
	conv := "valid"
	if ceil {
		conv = "full"
	}
	attrs := map[string]string{"kernel": tuple(kernel), "stride": tuple(strides), "pad": tuple(pb), "pool_type": kind, "pooling_convention": conv, "global_pool": "False"}
	if countPad != nil {
		attrs["count_include_pad"] = boolean(*countPad)
	}
	if kind == "lp" {
		attrs["p_value"] = "2" // the only p MXNet's lp pooling shares with LpPool
	}
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	var cuts []int
	for i, t := range trim {
		if t > 0 {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return e.finish(out, e.add("Pooling", out, attrs, 1, x))
	}
	cur := ref{e.add("Pooling", out+"_uncropped", attrs, 1, x), 0}
	for k, i := range cuts {
		name := out
		if k < len(cuts)-1 {
			name = fmt.Sprintf("%s_crop%d", out, k)
		}
		sa := map[string]string{"axis": strconv.Itoa(2 + i), "begin": "0", "end": strconv.FormatInt(trim[i], 10)}
		cur = ref{e.add("slice_axis", name, sa, 1, cur), 0}
	}
	e.refs[out] = cur
	return nil
}

func (e *exporter) split(n *canon.Node, op *canon.Split) error {
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	if allEqual(op.Sizes, op.Sizes[0]) {
		idx := e.add("SliceChannel", n.Name, map[string]string{"num_outputs": strconv.Itoa(len(op.Sizes)), "axis": strconv.FormatInt(op.Axis, 10)}, len(op.Sizes), x)
		for i, o := range n.Outputs {
			if o != "" {
				e.refs[o] = ref{idx, i}
			}
		}
		return nil
	}
	begin := int64(0)
	for i, o := range n.Outputs {
		name := o
		if name == "" {
			name = fmt.Sprintf("%s_output%d", n.Name, i)
		}
		idx := e.add("slice_axis", name, map[string]string{"axis": strconv.FormatInt(op.Axis, 10), "begin": strconv.FormatInt(begin, 10), "end": strconv.FormatInt(begin+op.Sizes[i], 10)}, 1, x)
		begin += op.Sizes[i]
		if o != "" {
			e.refs[o] = ref{idx, 0}
		}
	}
	return nil
}

func (e *exporter) unsqueeze(n *canon.Node, op *canon.Unsqueeze) error {
	r, ok := e.rank(n.Outputs[0])
	axes := slices.Clone(op.Axes)
	for i, a := range axes {
		if a < 0 {
			if !ok {
				return fmt.Errorf("negative axes need the rank")
			}
			axes[i] = a + int64(r)
		}
	}
	slices.Sort(axes)
	cur, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	for i, a := range axes {
		name := n.Outputs[0]
		if i < len(axes)-1 {
			name = fmt.Sprintf("%s_expand%d", n.Outputs[0], i)
		}
		cur = ref{e.add("expand_dims", name, map[string]string{"axis": strconv.FormatInt(a, 10)}, 1, cur), 0}
	}
	e.refs[n.Outputs[0]] = cur
	return nil
}

func (e *exporter) pad(n *canon.Node, op *canon.Pad) error {
	if op.Mode == canon.PadWrap {
		return fmt.Errorf("Pad in wrap mode: MXNet pads with a constant, the edge or a reflection only")
	}
	r := len(op.PadsBegin)
	if r != 4 && r != 5 {
		return fmt.Errorf("MXNet Pad works on 4-D and 5-D inputs only, this one has rank %d", r)
	}
	var pw []int64
	for i := 0; i < r; i++ {
		if op.PadsBegin[i] < 0 || op.PadsEnd[i] < 0 || i < 2 && (op.PadsBegin[i] != 0 || op.PadsEnd[i] != 0) {
			return fmt.Errorf("MXNet Pad pads spatial axes only, by non-negative amounts (have %v/%v)", op.PadsBegin, op.PadsEnd)
		}
		pw = append(pw, op.PadsBegin[i], op.PadsEnd[i])
	}
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	attrs := map[string]string{"mode": op.Mode.String(), "pad_width": tuple(pw), "constant_value": f32(op.Value)}
	return e.finish(n.Outputs[0], e.add("Pad", n.Outputs[0], attrs, 1, x))
}

func (e *exporter) slice(n *canon.Node, op *canon.Slice) error {
	s, ok := e.shape(n.Inputs[0])
	cur, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	axes := op.Axes
	if axes == nil {
		for i := range op.Starts {
			axes = append(axes, int64(i))
		}
	}
	for i, a := range axes {
		step := int64(1)
		if len(op.Steps) > i {
			step = op.Steps[i]
		}
		if step < 0 || step != 1 && !ok {
			return fmt.Errorf("slices with step %d are exported for positive steps on inputs of static shape only", step)
		}
		begin, end := op.Starts[i], op.Ends[i]
		mxOp := "slice_axis"
		attrs := map[string]string{"axis": strconv.FormatInt(a, 10)}
		if ok {
			if a < 0 {
				a += int64(len(s))
			}
			d := s[a]
			clamp := func(v int64) int64 {
				if v < 0 {
					v += d
				}
				return min(max(v, 0), d)
			}
			begin, end = clamp(begin), clamp(end)
			attrs["begin"], attrs["end"] = strconv.FormatInt(begin, 10), strconv.FormatInt(max(end, begin), 10)
			if step != 1 {
				// slice takes a step; it lists bounds for the leading axes,
				// None for those before this one.
				mxOp = "slice"
				b, en, st := make([]string, a+1), make([]string, a+1), make([]string, a+1)
				for k := range b {
					b[k], en[k], st[k] = "None", "None", "None"
				}
				b[a], en[a], st[a] = attrs["begin"], attrs["end"], strconv.FormatInt(step, 10)
				attrs = map[string]string{"begin": optTuple(b), "end": optTuple(en), "step": optTuple(st)}
			}
		} else if begin >= 0 && end == math.MaxInt64 {
			attrs["begin"], attrs["end"] = strconv.FormatInt(begin, 10), "None"
		} else {
			return fmt.Errorf("slicing needs a static input shape to resolve its bounds")
		}
		name := n.Outputs[0]
		if i < len(axes)-1 {
			name = fmt.Sprintf("%s_axis%d", n.Outputs[0], i)
		}
		cur = ref{e.add(mxOp, name, attrs, 1, cur), 0}
	}
	e.refs[n.Outputs[0]] = cur
	return nil
}

// optTuple writes a tuple whose entries may be None.
func optTuple(v []string) string {
	if len(v) == 1 {
		return "(" + v[0] + ",)"
	}
	return "(" + strings.Join(v, ", ") + ")"
}

func (e *exporter) resize(n *canon.Node, op *canon.Resize) error {
	if op.Mode != canon.ResizeNearest {
		return e.bilinearResize(n, op)
	}
	if op.Axes != nil {
		if op, err := fullRankResize(e, n, op); err != nil {
			return err
		} else {
			return e.resize(n, op)
		}
	}
	scales := op.Scales
	if scales == nil {
		in, ok1 := e.shape(n.Inputs[0])
		if !ok1 || len(in) != len(op.Sizes) {
			return fmt.Errorf("Resize to sizes needs a static input shape")
		}
		for i, s := range op.Sizes {
			if in[i] == 0 || s%in[i] != 0 {
				return fmt.Errorf("Resize to sizes %v is not an integer upsampling of %v", op.Sizes, in)
			}
			scales = append(scales, float32(s/in[i]))
		}
	}
	if len(scales) != 4 || scales[0] != 1 || scales[1] != 1 || scales[2] != scales[3] || scales[2] < 1 || scales[2] != float32(math.Trunc(float64(scales[2]))) {
		return fmt.Errorf("only 4-D nearest upsampling by one integer factor on H and W is exportable (scales %v)", scales)
	}
	// For an integer factor s, asymmetric+floor picks in[floor(i/s)], which is
	// MXNet's nearest UpSampling; so does any mode when s is 1.
	if scales[2] != 1 && !(op.CoordTransform == canon.Asymmetric && op.Nearest == canon.Floor) {
		return fmt.Errorf("Resize with %s/%s differs from MXNet's nearest UpSampling", op.CoordTransform, op.Nearest)
	}
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	attrs := map[string]string{"scale": strconv.Itoa(int(scales[2])), "sample_type": "nearest", "num_args": "1"}
	return e.finish(n.Outputs[0], e.add("UpSampling", n.Outputs[0], attrs, 1, x))
}

// scaledElu writes a Selu whose constants are not MXNet's fixed ones as
// LeakyReLU(elu, slope=Alpha) followed by _mul_scalar(Gamma).
func (e *exporter) scaledElu(n *canon.Node, op *canon.Selu) error {
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	elu := ref{e.add("LeakyReLU", out+"_elu", map[string]string{"act_type": "elu", "slope": f32(op.Alpha)}, 1, x), 0}
	return e.finish(out, e.add("_mul_scalar", out, map[string]string{"scalar": f32(op.Gamma)}, 1, elu))
}
