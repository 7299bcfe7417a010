package torchexport

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// Module is the generated PyTorch code for a graph and the state dict that
// goes with it.
type Module struct {
	// Source is model.py.
	Source string
	// Entries is the state dict model.Model().load_state_dict accepts with
	// strict=True, in the order the layers are built.
	Entries []Entry
	// Renames maps each initializer's original name to its state-dict key.
	Renames []Rename
}

// Rename is one original name and the state-dict key it became.
type Rename struct{ From, To string }

// unsupportedError names a node the generator cannot express in torch.
type unsupportedError struct {
	node, kind, why string
}

func (e *unsupportedError) Error() string {
	return fmt.Sprintf("node %q (%s) cannot be written as PyTorch code: %s", e.node, e.kind, e.why)
}

// generator builds model.py line by line.
type generator struct {
	g      *canon.Graph
	inits  map[string]*canon.Tensor
	used   map[string]bool // initializer names read by some node
	paths  nameSet         // every claimed dotted path (modules and tensors)
	layers map[string]bool // paths holding an nn layer (not a scope)
	vars   nameSet         // local variable names in forward
	expr   map[string]string
	keyOf  map[string]string // initializer name -> state key
	// shared maps second names of a tied tensor to its first name;
	// groupKey gives the state key a tied tensor was first registered at.
	shared   map[string]string
	groupKey map[string]string
	node     *canon.Node
	kindN    map[string]int
	// under holds every proper prefix of a claimed path (see markPath).
	under map[string]bool

	init    []string
	forward []string
	entries []Entry
	renames []Rename
}

// Generate writes model.py for g and the matching state dict. It fails,
// naming the node, when an op has no exact torch equivalent.
func Generate(g *canon.Graph) (*Module, error) {
	if g.Values == nil {
		if err := g.Infer(); err != nil {
			return nil, err
		}
	}
	// Kinds without a writer are written as canon's expansion of them.
	expanded, _, err := canon.Decompose(g, writtenAsIs)
	if err != nil {
		return nil, err
	}
	g = expanded
	gen := &generator{
		g: g, inits: g.InitializerIndex(), used: map[string]bool{},
		paths: nameSet{}, layers: map[string]bool{}, vars: nameSet{},
		expr: map[string]string{}, keyOf: map[string]string{}, kindN: map[string]int{},
		shared: g.SharedNames(), groupKey: map[string]string{},
	}
	for _, r := range []string{"self", "torch", "nn", "F", "math", "input", "x"} {
		gen.vars[r] = true
	}
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			if _, ok := gen.inits[in]; ok {
				gen.used[in] = true
			}
		}
	}
	var params []string
	for _, in := range g.Inputs {
		v := gen.vars.claim(localName(in.Name, "input"))
		gen.expr[in.Name] = v
		params = append(params, v)
	}
	for _, n := range g.Nodes {
		gen.node = n
		if err := gen.emit(n); err != nil {
			return nil, err
		}
	}
	// After the nodes, so that a string op is refused by its name.
	if v := canon.StringValue(g); v != "" {
		return nil, fmt.Errorf("value %q is a string tensor, and PyTorch has no string tensors; export to ONNX instead", v)
	}
	// Weights no node reads still belong to the model (a checkpoint keeps
	// them); register them so strict loading sees every key.
	for _, t := range g.Initializers {
		if !gen.used[t.Name] {
			gen.tensorRef(t.Name)
		}
	}
	var outs []string
	for _, o := range g.Outputs {
		e, err := gen.outputExpr(o.Name)
		if err != nil {
			return nil, err
		}
		outs = append(outs, e)
	}
	var src strings.Builder
	src.WriteString(prelude)
	fmt.Fprintf(&src, "\n\nclass Model(nn.Module):\n")
	fmt.Fprintf(&src, "    %s\n\n", pyString(docFor(g)))
	src.WriteString("    def __init__(self):\n        super().__init__()\n")
	for _, l := range gen.init {
		src.WriteString("        " + l + "\n")
	}
	src.WriteString("        self.eval()\n\n")
	fmt.Fprintf(&src, "    def forward(self, %s):\n", strings.Join(params, ", "))
	for _, l := range gen.forward {
		src.WriteString("        " + l + "\n")
	}
	if len(outs) == 1 {
		fmt.Fprintf(&src, "        return %s\n", outs[0])
	} else {
		fmt.Fprintf(&src, "        return (%s)\n", strings.Join(outs, ", ")+",")
	}
	return &Module{Source: src.String(), Entries: gen.entries, Renames: gen.renames}, nil
}

// writtenAsIs reports whether a node is written by its own writer (or has
// no expansion to fall back on) rather than as canon's expansion of it.
func writtenAsIs(n *canon.Node, _ func(string) canon.ValueInfo) bool {
	_, ok := opWriters[n.Op.Kind()]
	d := canon.DefOf(n.Op)
	return ok || d == nil || d.Decompose == nil
}

func docFor(g *canon.Graph) string {
	src := g.Meta.SourceFormat
	if src == "" {
		src = "a canonical graph"
	}
	name := g.Name
	if name == "" {
		name = "model"
	}
	return fmt.Sprintf("%s, converted from %s by modelbridge. Load weights.pt with load_state_dict(strict=True).", name, src) + quantizedNote(g)
}

// prelude is the top of model.py: imports and the two helpers the generated
// code uses for names that are not plain attributes.
const prelude = `# Generated by modelbridge. Usage:
#   import torch
#   from model import Model
#   model = Model()
#   model.load_state_dict(torch.load("weights.pt"), strict=True)
#   y = model(x)
import torch
import torch.nn as nn
import torch.nn.functional as F


class _Scope(nn.Module):
    """Holds submodules whose names may be indices, as nn.Sequential does."""

    def __getitem__(self, name):
        return getattr(self, str(name))


def _put(root, path, value, buffer=False):
    """Registers a module, parameter or buffer at a dotted path, creating scopes."""
    *parents, last = path.split(".")
    for p in parents:
        if p not in root._modules:
            root.add_module(p, _Scope())
        root = root._modules[p]
    if buffer:
        root.register_buffer(last, value)
    else:
        setattr(root, last, value)


def _gather(x, idx, axis):
    """ONNX Gather: entries of x along axis, negative indices from the end."""
    idx = torch.as_tensor(idx, dtype=torch.long, device=x.device)
    idx = torch.where(idx < 0, idx + x.shape[axis], idx)
    out = torch.index_select(x, axis, idx.reshape(-1))
    return out.reshape(x.shape[:axis] + idx.shape + x.shape[axis + 1:])
`

// localName makes a forward() variable name from a value name.
func localName(name, fallback string) string {
	s := sanitize(name)
	for _, suffix := range []string{"_output_0", "_output"} {
		if t, ok := strings.CutSuffix(s, suffix); ok && t != "" {
			s = t
			break
		}
	}
	if s == "" || len(s) > 40 {
		s = fallback
	}
	// Lower-casing can make a keyword ("IF" -> "if"), and a local must not
	// shadow a builtin the generated code calls.
	s = strings.ToLower(s)
	if pythonKeywords[s] || pythonBuiltins[s] {
		s = "v_" + s
	}
	return s
}

func (gen *generator) fail(why string, args ...any) error {
	return &unsupportedError{node: gen.node.Name, kind: gen.node.Op.Kind(), why: fmt.Sprintf(why, args...)}
}

// out names the variable holding output i of the current node and records
// it; empty outputs get no variable.
func (gen *generator) out(i int) string {
	name := gen.node.Outputs[i]
	base := localName(name, "t")
	if base == "t" || strings.HasPrefix(base, "m_") {
		base = localName(gen.node.Name, "t")
		if i > 0 {
			base += "_" + strconv.Itoa(i)
		}
	}
	v := gen.vars.claim(base)
	gen.expr[name] = v
	return v
}

// line adds `out = expr` to forward.
func (gen *generator) assign(expr string) {
	v := gen.out(0)
	gen.forward = append(gen.forward, v+" = "+expr)
}

// in returns the Python expression for input i of the current node.
func (gen *generator) in(i int) (string, error) {
	name := gen.node.Inputs[i]
	if e, ok := gen.expr[name]; ok {
		return e, nil
	}
	if _, ok := gen.inits[name]; ok {
		return gen.tensorRef(name), nil
	}
	if v, ok := gen.g.Values.Lookup(name); ok && v.Const != nil {
		return gen.constTensor(v.Const)
	}
	return "", gen.fail("input %q is not computed before this node", name)
}

// constInts returns input i as integers when it is known before running.
func (gen *generator) constInts(i int) ([]int64, bool) {
	name := gen.node.Inputs[i]
	if t, ok := gen.inits[name]; ok {
		v, err := t.Int64s()
		return v, err == nil
	}
	if v, ok := gen.g.Values.Lookup(name); ok && v.Const != nil {
		ints, err := v.Const.Int64s()
		return ints, err == nil
	}
	return nil, false
}

// shapeOf is the inferred static shape of a value.
func (gen *generator) shapeOf(name string) ([]int64, bool) {
	v, ok := gen.g.Values.Lookup(name)
	if !ok {
		return nil, false
	}
	return v.StaticShape()
}

// rankOf is the inferred rank of a value, or -1.
func (gen *generator) rankOf(name string) int {
	v, ok := gen.g.Values.Lookup(name)
	if !ok || !v.RankKnown {
		return -1
	}
	return len(v.Shape)
}

// constTensor writes a small constant computed by shape inference inline;
// larger ones become buffers.
func (gen *generator) constTensor(t *canon.Tensor) (string, error) {
	if t.NumElements() <= 64 && (t.DType.IsInt() || t.DType == canon.Bool) {
		ints, err := t.Int64s()
		if err != nil {
			return "", gen.fail("constant %q: %v", t.Name, err)
		}
		return fmt.Sprintf("torch.tensor(%s, dtype=%s).reshape(%s)", pyInts(ints, false), torchDTypes[t.DType], pyInts(t.Shape, true)), nil
	}
	return "", gen.fail("constant %q computed by shape inference is too large to inline", t.Name)
}

// claimPath reserves a module path derived from preferred (a valid dotted
// name kept as-is) or from base (sanitized), making it unique. Preferred
// names deeper than maxKeptParts components or longer than maxKeptBytes are
// sanitized instead: no real model nests so deep, and checking every
// prefix of such a name would cost its length squared.
func (gen *generator) claimPath(preferred []string, base, kind string) string {
	for _, p := range preferred {
		if p != "" && len(p) <= maxKeptBytes && strings.Count(p, ".") < maxKeptParts && ValidStateKey(p) && gen.pathFree(p) {
			gen.markPath(p)
			return p
		}
	}
	s := sanitize(base)
	if s == "" {
		s = kind + strconv.Itoa(gen.kindN[kind])
		gen.kindN[kind]++
	}
	if gen.pathFree(s) {
		gen.markPath(s)
		return s
	}
	s = firstFree(s, gen.pathFree)
	gen.markPath(s)
	return s
}

// Bounds on a name kept as a module path (see claimPath).
const (
	maxKeptParts = 64
	maxKeptBytes = 1024
)

// markPath claims p and records that each of its proper prefixes has
// something below it, so that pathFree needs no scan of every path.
func (gen *generator) markPath(p string) {
	gen.paths[p] = true
	if gen.under == nil {
		gen.under = map[string]bool{}
	}
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '.' {
			if gen.under[p[:i]] {
				break // its own prefixes were recorded with it
			}
			gen.under[p[:i]] = true
		}
	}
}

// pathFree reports whether p and every path below or above it is unclaimed
// in a conflicting way: no prefix of p is a tensor, and p is not taken.
// It costs one lookup per component of p, whatever the number of paths.
func (gen *generator) pathFree(p string) bool {
	if gen.paths[p] || gen.under[p] {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			if pre := p[:i]; gen.paths[pre] && !gen.layers[pre] {
				return false
			}
		}
	}
	return true
}

// access is the Python expression reaching a dotted path from self.
func (gen *generator) access(path string) string {
	parts := strings.Split(path, ".")
	expr := "self"
	for i, p := range parts {
		parent := strings.Join(parts[:i], ".")
		switch {
		case isIndex(p) && !gen.layers[parent] && i > 0:
			expr += "[" + p + "]"
		case isIdentifier(p):
			expr += "." + p
		default:
			expr = "getattr(" + expr + ", " + pyString(p) + ")"
		}
	}
	return expr
}

// register adds an __init__ line putting value at path.
func (gen *generator) register(path, value string, buffer bool) {
	if !strings.Contains(path, ".") {
		switch {
		case buffer:
			gen.init = append(gen.init, fmt.Sprintf("self.register_buffer(%s, %s)", pyString(path), value))
		case isIdentifier(path):
			gen.init = append(gen.init, fmt.Sprintf("self.%s = %s", path, value))
		case strings.HasPrefix(value, "nn.Parameter("):
			gen.init = append(gen.init, fmt.Sprintf("self.register_parameter(%s, %s)", pyString(path), value))
		default:
			// An index such as nn.Sequential's children use ("3").
			gen.init = append(gen.init, fmt.Sprintf("self.add_module(%s, %s)", pyString(path), value))
		}
		return
	}
	if buffer {
		gen.init = append(gen.init, fmt.Sprintf("_put(self, %s, %s, buffer=True)", pyString(path), value))
	} else {
		gen.init = append(gen.init, fmt.Sprintf("_put(self, %s, %s)", pyString(path), value))
	}
}

// addEntry records a state-dict entry for an initializer (or a tensor
// derived from one, such as a reshaped PReLU slope).
func (gen *generator) addEntry(key string, orig string, t *canon.Tensor) {
	gen.entries = append(gen.entries, Entry{Key: key, Tensor: t})
	if orig != "" {
		gen.keyOf[orig] = key
		gen.renames = append(gen.renames, Rename{From: orig, To: key})
		gen.noteKey(key, orig, t)
	}
}

// tensorRef returns the expression for an initializer that is not a layer
// parameter, registering it (once) as a parameter (floats) or buffer.
func (gen *generator) tensorRef(name string) string {
	if key, ok := gen.keyOf[name]; ok {
		return gen.access(key)
	}
	if e, ok := gen.tiedRef(name); ok {
		return e
	}
	t := gen.inits[name]
	key := gen.claimPath([]string{name}, name, "tensor")
	ctor := fmt.Sprintf("torch.empty(%s, dtype=%s)", pyInts(t.Shape, true), torchDTypes[t.DType])
	if t.DType.IsFloat() {
		gen.register(key, "nn.Parameter("+ctor+")", false)
	} else {
		gen.register(key, ctor, true)
	}
	gen.addEntry(key, name, t)
	return gen.access(key)
}

// layerParams are the state-dict suffixes of a layer's tensors, in order.
type layerParam struct {
	suffix string
	input  int // node input index; -1 for a tensor the exporter adds
}

// claimLayer picks the module path for a layer whose tensors are the node
// inputs listed in params. Names like "conv1.weight" + "conv1.bias" keep
// their prefix "conv1"; otherwise the node's name is used.
func (gen *generator) claimLayer(params []layerParam, kind string) string {
	prefix := ""
	for _, p := range params {
		if p.input < 0 || p.input >= len(gen.node.Inputs) || gen.node.Inputs[p.input] == "" {
			continue
		}
		pre, ok := strings.CutSuffix(gen.node.Inputs[p.input], "."+p.suffix)
		if !ok || (prefix != "" && pre != prefix) {
			prefix = "\x00"
			break
		}
		prefix = pre
	}
	var preferred []string
	if prefix != "\x00" {
		preferred = []string{prefix}
	}
	path := gen.claimPath(preferred, gen.node.Name, kind)
	gen.layers[path] = true
	return path
}

// ownedInits reports whether inputs idx are all initializers not yet given
// a key (so a layer can own them).
func (gen *generator) ownedInits(dt canon.DType, idx ...int) bool {
	for _, i := range idx {
		if i >= len(gen.node.Inputs) || gen.node.Inputs[i] == "" {
			continue
		}
		t, ok := gen.inits[gen.node.Inputs[i]]
		if !ok || t.DType != dt {
			return false
		}
		if _, taken := gen.keyOf[t.Name]; taken {
			return false
		}
		if _, tied := gen.groupKey[gen.sharedGroup(t.Name)]; tied {
			return false // another name of this tensor has its Parameter
		}
	}
	return true
}

var torchDTypes = map[canon.DType]string{
	canon.Float32: "torch.float32", canon.Float64: "torch.float64", canon.Float16: "torch.float16",
	canon.BFloat16: "torch.bfloat16", canon.Int8: "torch.int8", canon.Int16: "torch.int16",
	canon.Int32: "torch.int32", canon.Int64: "torch.int64", canon.Uint8: "torch.uint8", canon.Bool: "torch.bool",
}

// pyInts formats integers as a Python tuple (asTuple) or list.
func pyInts(v []int64, asTuple bool) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(x, 10)
	}
	if !asTuple {
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if len(v) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// pyFloat formats a float32 exactly (the shortest float64 text equal to it).
func pyFloat(f float32) string {
	d := float64(f)
	switch {
	case d != d:
		return "float('nan')"
	case math.IsInf(d, 1):
		return "float('inf')"
	case math.IsInf(d, -1):
		return "float('-inf')"
	}
	s := strconv.FormatFloat(d, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// pyString quotes s as a Python string literal.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
