package onnximport

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// nodeCtx is the conversion of one ONNX node. Attribute accessors record
// the first malformed attribute in err; emit refuses to proceed past it, so
// converters can read attributes without checking each one.
type nodeCtx struct {
	im    *importer
	n     *onnxpb.NodeProto
	name  string
	op    string
	attrs map[string]*onnxpb.AttributeProto
	err   error
}

func (c *nodeCtx) errf(format string, args ...any) error {
	return fmt.Errorf("node %q (%s): %s", c.name, c.op, fmt.Sprintf(format, args...))
}

func (c *nodeCtx) fail(format string, args ...any) {
	if c.err == nil {
		c.err = c.errf(format, args...)
	}
}

// attrType is an attribute's type; files from before the type field
// existed are classified by which value is set.
func attrType(a *onnxpb.AttributeProto) onnxpb.AttributeProto_AttributeType {
	if t := a.GetType(); t != onnxpb.AttributeProto_UNDEFINED {
		return t
	}
	switch {
	case len(a.Floats) > 0:
		return onnxpb.AttributeProto_FLOATS
	case len(a.Ints) > 0:
		return onnxpb.AttributeProto_INTS
	case len(a.Strings) > 0:
		return onnxpb.AttributeProto_STRINGS
	case a.T != nil:
		return onnxpb.AttributeProto_TENSOR
	case a.G != nil:
		return onnxpb.AttributeProto_GRAPH
	case a.S != nil:
		return onnxpb.AttributeProto_STRING
	case a.I != nil:
		return onnxpb.AttributeProto_INT
	case a.F != nil:
		return onnxpb.AttributeProto_FLOAT
	}
	return onnxpb.AttributeProto_UNDEFINED
}

// attr returns the named attribute if it is present with type want.
func (c *nodeCtx) attr(name string, want onnxpb.AttributeProto_AttributeType) *onnxpb.AttributeProto {
	a := c.attrs[name]
	if a == nil {
		return nil
	}
	if t := attrType(a); t != want {
		// An empty list attribute may arrive without a type.
		if t == onnxpb.AttributeProto_UNDEFINED && (want == onnxpb.AttributeProto_INTS || want == onnxpb.AttributeProto_FLOATS) {
			return a
		}
		c.fail("attribute %s has type %s, want %s", name, t, want)
		return nil
	}
	return a
}

func (c *nodeCtx) has(name string) bool { return c.attrs[name] != nil }

func (c *nodeCtx) int(name string, def int64) int64 {
	if a := c.attr(name, onnxpb.AttributeProto_INT); a != nil {
		return a.GetI()
	}
	return def
}

func (c *nodeCtx) float(name string, def float32) float32 {
	if a := c.attr(name, onnxpb.AttributeProto_FLOAT); a != nil {
		return a.GetF()
	}
	return def
}

func (c *nodeCtx) str(name, def string) string {
	if a := c.attr(name, onnxpb.AttributeProto_STRING); a != nil {
		return string(a.GetS())
	}
	return def
}

// ints returns a list attribute (a fresh copy), or nil when absent.
func (c *nodeCtx) ints(name string) []int64 {
	if a := c.attr(name, onnxpb.AttributeProto_INTS); a != nil {
		return append([]int64{}, a.Ints...)
	}
	return nil
}

func (c *nodeCtx) floats(name string) []float32 {
	if a := c.attr(name, onnxpb.AttributeProto_FLOATS); a != nil {
		return append([]float32{}, a.Floats...)
	}
	return nil
}

// in returns the name of input i ("" when absent).
func (c *nodeCtx) in(i int) string {
	if i < len(c.n.Input) {
		return c.n.Input[i]
	}
	return ""
}

// info returns the type of input i (zero when absent).
func (c *nodeCtx) info(i int) canon.ValueInfo {
	if x := c.in(i); x != "" {
		return c.im.vals.Get(x)
	}
	return canon.ValueInfo{}
}

func (c *nodeCtx) rank(i int) (int, bool) {
	v := c.info(i)
	return len(v.Shape), v.RankKnown
}

// needRank returns the rank of input i or records why it is needed.
func (c *nodeCtx) needRank(i int, why string) int {
	r, ok := c.rank(i)
	if !ok {
		c.fail("%s needs the rank of input %q, which is unknown; give the model's inputs full shapes (--input-shape)", why, c.in(i))
		return 0
	}
	return r
}

// constIn returns input i's constant value: an initializer, a Constant
// node's output, or a value that shape inference computed. Absent optional
// inputs give nil.
func (c *nodeCtx) constIn(i int, what string) *canon.Tensor {
	x := c.in(i)
	if x == "" {
		return nil
	}
	v := c.im.vals.Get(x)
	if v.Const == nil {
		c.fail("%s (input %q) must be a constant (an initializer or a Constant node); values computed at run time are not supported here", what, x)
		return nil
	}
	return v.Const
}

// dynamic reports whether optional input i is given but its value is only
// known at run time (not an initializer, a Constant or inferable). Such a
// parameter becomes the canonical op's run-time input; a known one is
// folded into the op's attribute, the preferred canonical form.
func (c *nodeCtx) dynamic(i int) bool {
	x := c.in(i)
	return x != "" && c.im.vals.Get(x).Const == nil
}

// dynIn returns input i's name when it is dynamic, "" otherwise.
func (c *nodeCtx) dynIn(i int) string {
	if c.dynamic(i) {
		return c.in(i)
	}
	return ""
}

func (c *nodeCtx) constInts(i int, what string) ([]int64, bool) {
	t := c.constIn(i, what)
	if t == nil {
		return nil, false
	}
	v, err := t.Int64s()
	if err != nil {
		c.fail("%s: %v", what, err)
		return nil, false
	}
	return v, true
}

func (c *nodeCtx) constFloats(i int, what string) ([]float64, bool) {
	t := c.constIn(i, what)
	if t == nil {
		return nil, false
	}
	v, err := t.Float64s()
	if err != nil {
		c.fail("%s: %v", what, err)
		return nil, false
	}
	return v, true
}

// constScalar reads an optional scalar (or one-element) constant input.
func (c *nodeCtx) constScalar(i int, what string, def float64) float64 {
	v, ok := c.constFloats(i, what)
	if !ok {
		return def
	}
	if len(v) != 1 {
		c.fail("%s must hold one value, has %d", what, len(v))
		return def
	}
	return v[0]
}

// outputs returns the node's outputs with trailing unnamed ones dropped. An
// output past max, or an optional one (index >= keep) that something reads,
// is refused with why.
func (c *nodeCtx) outputs(keep int, why string) []string {
	outs := append([]string{}, c.n.Output...)
	for len(outs) > 0 && outs[len(outs)-1] == "" {
		outs = outs[:len(outs)-1]
	}
	for i := keep; i < len(outs); i++ {
		if outs[i] == "" {
			continue
		}
		if c.im.uses.count(outs[i]) > 0 {
			c.fail("output %d (%q) is used, but %s", i, outs[i], why)
		}
	}
	if len(outs) > keep {
		outs = outs[:keep]
	}
	if len(outs) == 0 {
		c.fail("node has no output")
	}
	return outs
}

func (c *nodeCtx) out1() []string { return c.outputs(1, "this op has a single output") }

// emit adds a canonical node under the ONNX node's name.
func (c *nodeCtx) emit(op canon.Op, ins, outs []string) error {
	return c.emitNamed(c.name, op, ins, outs)
}

// emitAux adds a helper node (an inserted Transpose, ...) whose name and
// output derive from the ONNX node's name; it returns the output.
// chainAux is emitAux for expansions of many steps: the first error is
// kept in c.err and every later step does nothing, so a chain reads as
// straight-line code and checks c.err once at its end.
func (c *nodeCtx) chainAux(suffix string, op canon.Op, ins ...string) string {
	if c.err != nil {
		return ""
	}
	out, err := c.emitAux(suffix, op, ins...)
	if err != nil {
		c.err = err
	}
	return out
}

func (c *nodeCtx) emitAux(suffix string, op canon.Op, ins ...string) (string, error) {
	out := c.im.fresh(c.name + "/" + suffix)
	err := c.emitNamed(c.im.freshNode(c.name+"/"+suffix), op, ins, []string{out})
	return out, err
}

// emitNamed appends the node and records its outputs' inferred types.
func (c *nodeCtx) emitNamed(name string, op canon.Op, ins, outs []string) error {
	if c.err != nil {
		return c.err
	}
	for len(ins) > 0 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	node := &canon.Node{Name: name, Op: op, Inputs: ins, Outputs: outs}
	types := make([]canon.ValueInfo, len(ins))
	for i, x := range ins {
		if x != "" {
			types[i] = c.im.vals.Get(x)
		}
	}
	res, err := canon.InferNode(node, types)
	if err != nil {
		if strings.HasPrefix(err.Error(), "node ") {
			return err // already names the node
		}
		return c.errf("%v", err)
	}
	if len(res) != len(outs) {
		return c.errf("shape inference returned %d outputs for %d", len(res), len(outs))
	}
	for i, o := range outs {
		if o == "" {
			continue
		}
		v := res[i]
		v.Name = o
		if k, ok := op.(*canon.Constant); ok && v.Const == nil {
			v = constInfo(k.Value)
			v.Name = o
		}
		c.im.vals.Set(o, v)
	}
	c.im.g.Nodes = append(c.im.g.Nodes, node)
	return nil
}

// normAxis maps a possibly negative axis into [0, rank).
func (c *nodeCtx) normAxis(axis int64, rank int, what string) int64 {
	if axis < -int64(rank) || axis >= int64(rank) {
		c.fail("%s %d is out of range for rank %d", what, axis, rank)
		return 0
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return axis
}

// normAxes normalizes axes when the rank is known (rank >= 0).
func (c *nodeCtx) normAxes(axes []int64, rank int, what string) []int64 {
	if rank < 0 || axes == nil {
		return axes
	}
	out := make([]int64, len(axes))
	for i, a := range axes {
		out[i] = c.normAxis(a, rank, what)
	}
	return out
}

// rankOr returns input i's rank, or -1 when unknown.
func (c *nodeCtx) rankOr(i int) int {
	if r, ok := c.rank(i); ok {
		return r
	}
	return -1
}

func fill(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func toF32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
