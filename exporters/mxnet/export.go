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
)

// Version is the mxnet_version written into the symbol (1.3.0).
const Version = 10300

func init() {
	formats.RegisterExporter(&formats.Exporter{
		Name:       "mxnet",
		Extensions: []string{"-symbol.json"},
		Write:      Write,
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
		name := graphName
		if name == "" || strings.ContainsAny(name, `/\`) {
			name = "model"
		}
		prefix = filepath.Join(path, name)
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
}

type jsonSymbol struct {
	Nodes      []jsonNode       `json:"nodes"`
	ArgNodes   []int            `json:"arg_nodes"`
	NodeRowPtr []int            `json:"node_row_ptr"`
	Heads      [][3]int         `json:"heads"`
	Attrs      map[string][]any `json:"attrs"`
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

// Write exports g to the files Paths names.
func Write(g *canon.Graph, path string, opts formats.WriteOptions) error {
	sym, params, err := Encode(g)
	if err != nil {
		return err
	}
	symPath, paramsPath := Paths(path, g.Name)
	fs, err := atomicfile.Create(symPath)
	if err != nil {
		return err
	}
	defer fs.Abort()
	if params == nil {
		// No weights (a symbol-only import): the symbol alone, as MXNet
		// users share architectures.
		if _, err := fs.Write(sym); err != nil {
			return fmt.Errorf("cannot write %s: %w", symPath, err)
		}
		return fs.Commit()
	}
	fp, err := atomicfile.Create(paramsPath)
	if err != nil {
		return err
	}
	defer fp.Abort()
	if _, err := fs.Write(sym); err != nil {
		return fmt.Errorf("cannot write %s: %w", symPath, err)
	}
	if err := writeWithProgress(fp, params, tensorBytes(g), opts.Progress); err != nil {
		return fmt.Errorf("cannot write %s: %w", paramsPath, err)
	}
	// Params first: a symbol without its weights is the worse half-state.
	if err := fp.Commit(); err != nil {
		return err
	}
	return fs.Commit()
}

// Encode renders the symbol JSON and the params file in memory; params is
// nil when the graph has no weights at all.
func Encode(g *canon.Graph) (symbol, params []byte, err error) {
	if err := g.Validate(); err != nil {
		return nil, nil, fmt.Errorf("cannot export an invalid graph: %w", err)
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
		if _, ok := n.Op.(*canon.BatchNorm); ok && len(n.Inputs) == 5 {
			e.aux[n.Inputs[3]], e.aux[n.Inputs[4]] = true, true
		}
	}
	for _, v := range g.Inputs {
		e.variable(v.Name, inputAttrs(v))
	}
	for _, n := range g.Nodes {
		if err := e.node(n); err != nil {
			return nil, nil, fmt.Errorf("cannot export to MXNet: node %s (%s): %w", n.Name, n.Op.Kind(), err)
		}
	}
	var heads [][3]int
	for _, o := range g.Outputs {
		r, err := e.value(o.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot export to MXNet: graph output %s: %w", o.Name, err)
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
	symbol, err = json.MarshalIndent(js, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	if len(e.ptens) == 0 && len(g.Initializers) == 0 {
		return symbol, nil, nil
	}
	var pb bytes.Buffer
	if err := mxparams.Write(&pb, e.pnames, e.ptens); err != nil {
		return nil, nil, fmt.Errorf("cannot export to MXNet: %w", err)
	}
	return symbol, pb.Bytes(), nil
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

// weight returns a weight input in the layout MXNet wants (want), permuting
// a constant stored otherwise.
func (e *exporter) weight(name string, want canon.Layout) (ref, error) {
	if r, ok := e.refs[name]; ok {
		return r, nil
	}
	t, ok := e.consts[name]
	if !ok || t.Layout == "" || t.Layout == want {
		return e.value(name)
	}
	pt, err := canon.PermuteTensor(t, want)
	if err != nil {
		return ref{}, err
	}
	return e.param(name, pt)
}

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
	return e.g.Values[v].StaticShape()
}

func (e *exporter) rank(v string) (int, bool) {
	vi := e.g.Values[v]
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

func (e *exporter) node(n *canon.Node) error {
	out := ""
	if len(n.Outputs) > 0 {
		out = n.Outputs[0]
	}
	single := func(op string, attrs map[string]string, inputs ...string) error {
		in, err := e.values(inputs...)
		if err != nil {
			return err
		}
		return e.finish(out, e.add(op, out, attrs, 1, in...))
	}
	switch n.Op.(type) {
	case *canon.Clip, *canon.Pad, *canon.Slice, *canon.Split, *canon.Squeeze, *canon.Unsqueeze, *canon.Resize:
		// MXNet symbols take these parameters as attributes only.
		for _, x := range n.Inputs[1:] {
			if x != "" {
				return fmt.Errorf("parameter %q is computed at run time; MXNet symbols take it only as a constant attribute", x)
			}
		}
	}
	switch op := n.Op.(type) {
	case *canon.Constant:
		return nil // written as a parameter where it is used
	case *canon.Conv:
		return e.conv(n, op)
	case *canon.ConvTranspose:
		return e.deconv(n, op)
	case *canon.BatchNorm:
		in, err := e.values(n.Inputs...)
		if err != nil {
			return err
		}
		if len(in) != 5 {
			return fmt.Errorf("needs all five inputs")
		}
		attrs := map[string]string{"eps": strconv.FormatFloat(float64(op.Epsilon), 'g', -1, 32), "fix_gamma": "False", "use_global_stats": "True", "momentum": "0.9", "axis": "1"}
		return e.finish(out, e.add("BatchNorm", out, attrs, 3, in...))
	case *canon.Linear:
		return e.linear(n, op)
	case *canon.MatMul:
		ra, ok1 := e.rank(n.Inputs[0])
		rb, ok2 := e.rank(n.Inputs[1])
		switch {
		case ok1 && ok2 && ra == 2 && rb == 2:
			return single("dot", nil, n.Inputs...)
		case ok1 && ok2 && ra == 3 && rb == 3:
			sa, _ := e.shape(n.Inputs[0])
			sb, _ := e.shape(n.Inputs[1])
			if sa != nil && sb != nil && sa[0] == sb[0] {
				return single("batch_dot", nil, n.Inputs...)
			}
		}
		return fmt.Errorf("MatMul is exported for 2-D x 2-D (dot) or equal-batch 3-D (batch_dot) inputs only")
	case *canon.Binary:
		return e.binary(n, op)
	case *canon.Unary:
		act := map[canon.UnaryFn]string{canon.Relu: "relu", canon.Sigmoid: "sigmoid", canon.Tanh: "tanh", canon.Softplus: "softrelu", canon.Softsign: "softsign"}[op.Fn]
		if act == "" {
			return fmt.Errorf("MXNet 1.x has no %s activation", op.Fn)
		}
		return single("Activation", map[string]string{"act_type": act}, n.Inputs[0])
	case *canon.LeakyRelu:
		return single("LeakyReLU", map[string]string{"act_type": "leaky", "slope": f32(op.Alpha)}, n.Inputs[0])
	case *canon.Elu:
		return single("LeakyReLU", map[string]string{"act_type": "elu", "slope": f32(op.Alpha)}, n.Inputs[0])
	case *canon.Selu:
		// MXNet's SELU has fixed constants; other ones are written as
		// Gamma * elu(Alpha), which is the same function.
		if op.Alpha == canon.SeluAlpha && op.Gamma == canon.SeluGamma {
			return single("LeakyReLU", map[string]string{"act_type": "selu"}, n.Inputs[0])
		}
		return e.scaledElu(n, op)
	case *canon.PRelu:
		return e.prelu(n)
	case *canon.Clip:
		bound := func(v float32) string {
			// MXNet has no infinite bounds; the float32 extremes clip nothing.
			if math.IsInf(float64(v), 0) {
				return strconv.FormatFloat(math.Copysign(math.MaxFloat32, float64(v)), 'g', -1, 32)
			}
			return f32(v)
		}
		return single("clip", map[string]string{"a_min": bound(op.Min), "a_max": bound(op.Max)}, n.Inputs[0])
	case *canon.HardSigmoid:
		return single("hard_sigmoid", map[string]string{"alpha": f32(op.Alpha), "beta": f32(op.Beta)}, n.Inputs[0])
	case *canon.Softmax:
		return single("softmax", map[string]string{"axis": strconv.FormatInt(op.Axis, 10)}, n.Inputs[0])
	case *canon.MaxPool:
		return e.pool(n, "max", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, nil)
	case *canon.AveragePool:
		cip := op.CountIncludePad
		return e.pool(n, "avg", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, &cip)
	case *canon.GlobalAveragePool, *canon.GlobalMaxPool:
		pt := "avg"
		if _, ok := op.(*canon.GlobalMaxPool); ok {
			pt = "max"
		}
		nd := 2
		if r, ok := e.rank(n.Inputs[0]); ok && r > 2 {
			nd = r - 2
		}
		return single("Pooling", map[string]string{"global_pool": "True", "kernel": tuple(ones(nd)), "pool_type": pt}, n.Inputs[0])
	case *canon.ReduceMean:
		attrs := map[string]string{"keepdims": boolean(op.KeepDims)}
		if len(op.Axes) > 0 {
			attrs["axis"] = tuple(op.Axes)
		}
		return single("mean", attrs, n.Inputs[0])
	case *canon.Concat:
		return single("Concat", map[string]string{"dim": strconv.FormatInt(op.Axis, 10), "num_args": strconv.Itoa(len(n.Inputs))}, n.Inputs...)
	case *canon.Split:
		return e.split(n, op)
	case *canon.Reshape:
		if op.Shape == nil || (len(n.Inputs) > 1 && n.Inputs[1] != "") {
			return fmt.Errorf("Reshape to a computed shape is not supported by MXNet symbols")
		}
		if op.AllowZero && slices.Contains(op.Shape, 0) {
			return fmt.Errorf("Reshape with allowzero and a 0 dim has no MXNet equivalent")
		}
		return single("Reshape", map[string]string{"shape": tuple(op.Shape)}, n.Inputs[0])
	case *canon.Flatten:
		switch {
		case op.Axis == 1:
			return single("Flatten", nil, n.Inputs[0])
		case op.Axis == 0:
			return single("Reshape", map[string]string{"shape": "(1, -1)"}, n.Inputs[0])
		}
		s, ok := e.shape(out)
		if !ok {
			return fmt.Errorf("Flatten on axis %d needs static shapes", op.Axis)
		}
		return single("Reshape", map[string]string{"shape": tuple(s)}, n.Inputs[0])
	case *canon.Transpose:
		return single("transpose", map[string]string{"axes": tuple(op.Perm)}, n.Inputs[0])
	case *canon.Squeeze:
		var attrs map[string]string
		if len(op.Axes) > 0 {
			attrs = map[string]string{"axis": tuple(op.Axes)}
		}
		return single("squeeze", attrs, n.Inputs[0])
	case *canon.Unsqueeze:
		return e.unsqueeze(n, op)
	case *canon.Pad:
		return e.pad(n, op)
	case *canon.Slice:
		return e.slice(n, op)
	case *canon.Identity:
		return single("_copy", nil, n.Inputs[0])
	case *canon.Dropout:
		in, err := e.values(n.Inputs[0])
		if err != nil {
			return err
		}
		idx := e.add("Dropout", out, map[string]string{"p": f32(op.Ratio)}, 2, in...)
		if len(n.Outputs) > 1 && n.Outputs[1] != "" {
			return fmt.Errorf("the Dropout mask output is not supported")
		}
		return e.finish(out, idx)
	case *canon.Resize:
		return e.resize(n, op)
	}
	return fmt.Errorf("no MXNet equivalent for canonical op %s", n.Op.Kind())
}

func ones(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func (e *exporter) conv(n *canon.Node, op *canon.Conv) error {
	w := e.g.Values[n.Inputs[1]]
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
	wr, err := e.weight(n.Inputs[1], canon.Layout("OI"+canon.SpatialLetters(nd)))
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
	ws, ok := e.g.Values[n.Inputs[1]].StaticShape()
	if !ok {
		return fmt.Errorf("the weight shape must be known")
	}
	nd := len(ws) - 2
	// MXNet crops pad on both sides and adds adj at the end, so begin
	// padding is pad and the end crop is pad - adj.
	adj := make([]int64, nd)
	for i := 0; i < nd; i++ {
		op0 := int64(0)
		if i < len(op.OutputPadding) {
			op0 = op.OutputPadding[i]
		}
		adj[i] = op0 + op.PadsBegin[i] - op.PadsEnd[i]
		if adj[i] < 0 || adj[i] >= max(op.Strides[i], op.Dilations[i]) {
			return fmt.Errorf("pads %v/%v with output_padding %v need adj %v, which MXNet does not allow (0 <= adj < stride)", op.PadsBegin, op.PadsEnd, op.OutputPadding, adj)
		}
	}
	in, err := e.values(n.Inputs[0])
	if err != nil {
		return err
	}
	wr, err := e.weight(n.Inputs[1], canon.Layout("IO"+canon.SpatialLetters(nd)))
	if err != nil {
		return err
	}
	in = append(in, wr)
	in, noBias, err := e.appendBias(n, in)
	if err != nil {
		return err
	}
	attrs := map[string]string{
		"kernel": tuple(ws[2:]), "stride": tuple(op.Strides), "dilate": tuple(op.Dilations), "pad": tuple(op.PadsBegin),
		"adj": tuple(adj), "num_filter": strconv.FormatInt(ws[1]*op.Group, 10), "num_group": strconv.FormatInt(op.Group, 10),
		"no_bias": boolean(noBias),
	}
	return e.finish(n.Outputs[0], e.add("Deconvolution", n.Outputs[0], attrs, 1, in...))
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
	ws, ok := e.g.Values[n.Inputs[1]].StaticShape()
	if !ok || len(ws) != 2 {
		return fmt.Errorf("the weight shape must be known")
	}
	in, err := e.values(n.Inputs[0])
	if err != nil {
		return err
	}
	wr, err := e.weight(n.Inputs[1], "OI")
	if err != nil {
		return err
	}
	in = append(in, wr)
	if hasC {
		cs, ok := e.g.Values[n.Inputs[2]].StaticShape()
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
	os, ok1 := e.g.Values[other].StaticShape()
	rs, ok2 := e.g.Values[out].StaticShape()
	if !(len(t.Shape) == 0 || ok1 && ok2 && slices.Equal(os, rs)) {
		return "", false
	}
	if t.DType != e.g.Values[other].DType {
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

func (e *exporter) binary(n *canon.Node, op *canon.Binary) error {
	a, b, out := n.Inputs[0], n.Inputs[1], n.Outputs[0]
	scalarOps := map[canon.BinaryFn][2]string{
		canon.Add: {"_plus_scalar", "_plus_scalar"},
		canon.Sub: {"_minus_scalar", "_rminus_scalar"},
		canon.Mul: {"_mul_scalar", "_mul_scalar"},
		canon.Div: {"_div_scalar", "_rdiv_scalar"},
	}
	if s, ok := e.scalarOf(b, a, out); ok {
		x, err := e.value(a)
		if err != nil {
			return err
		}
		return e.finish(out, e.add(scalarOps[op.Fn][0], out, map[string]string{"scalar": s}, 1, x))
	}
	if s, ok := e.scalarOf(a, b, out); ok {
		x, err := e.value(b)
		if err != nil {
			return err
		}
		return e.finish(out, e.add(scalarOps[op.Fn][1], out, map[string]string{"scalar": s}, 1, x))
	}
	in, err := e.values(a, b)
	if err != nil {
		return err
	}
	name := map[canon.BinaryFn]string{canon.Add: "broadcast_add", canon.Sub: "broadcast_sub", canon.Mul: "broadcast_mul", canon.Div: "broadcast_div"}[op.Fn]
	return e.finish(out, e.add(name, out, nil, 1, in...))
}

func (e *exporter) prelu(n *canon.Node) error {
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	xr, _ := e.rank(n.Inputs[0])
	ss, ok := e.g.Values[n.Inputs[1]].StaticShape()
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
	if !slices.Equal(pb, pe) {
		return fmt.Errorf("asymmetric pooling pads %v/%v have no MXNet equivalent", pb, pe)
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
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	return e.finish(n.Outputs[0], e.add("Pooling", n.Outputs[0], attrs, 1, x))
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
		if len(op.Steps) > i && op.Steps[i] != 1 {
			return fmt.Errorf("slices with step %d are not supported", op.Steps[i])
		}
		begin, end := op.Starts[i], op.Ends[i]
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
		} else if begin >= 0 && end == math.MaxInt64 {
			attrs["begin"], attrs["end"] = strconv.FormatInt(begin, 10), "None"
		} else {
			return fmt.Errorf("slicing needs a static input shape to resolve its bounds")
		}
		name := n.Outputs[0]
		if i < len(axes)-1 {
			name = fmt.Sprintf("%s_axis%d", n.Outputs[0], i)
		}
		cur = ref{e.add("slice_axis", name, attrs, 1, cur), 0}
	}
	e.refs[n.Outputs[0]] = cur
	return nil
}

func (e *exporter) resize(n *canon.Node, op *canon.Resize) error {
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
