package canon

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/modelbridge/modelbridge/internal/nameindex"
)

// InferNode computes the types of n's outputs from the types of its inputs:
// in[i] is the type of n.Inputs[i] (the zero ValueInfo for an absent
// optional input). It returns one ValueInfo per entry of n.Outputs, named
// after it. Unknown dimensions propagate as unknown; small integer tensors
// whose content is known (shapes, axes) are computed into Const so that
// shape arithmetic such as Shape -> Gather -> Concat -> Reshape resolves to
// a static shape.
func InferNode(n *Node, in []ValueInfo) ([]ValueInfo, error) {
	if n == nil {
		return nil, errors.New("nil node")
	}
	if isNilOp(n.Op) {
		return nil, fmt.Errorf("node %q has no op", n.Name)
	}
	if len(in) != len(n.Inputs) {
		return nil, nodeErrorf(n, "%d input types given for %d inputs", len(in), len(n.Inputs))
	}
	if err := checkArity(n); err != nil {
		return nil, err
	}
	if err := checkAttrs(n); err != nil {
		return nil, err
	}
	c := &InferCtx{n: n, in: in}
	if err := c.refuseStrings(); err != nil {
		return nil, err
	}
	outs, err := c.infer()
	if err != nil {
		return nil, err
	}
	if len(outs) < len(n.Outputs) {
		return nil, nodeErrorf(n, "has %d outputs, inference produced %d", len(n.Outputs), len(outs))
	}
	res := make([]ValueInfo, len(n.Outputs))
	for i, name := range n.Outputs {
		res[i] = outs[i]
		res[i].Name = name
	}
	return res, nil
}

// Infer fills g.Values with the type of every value: graph inputs,
// initializers (with Const set to the tensor) and node outputs, in node
// order. Where inference knows more than a graph output's declared type, the
// declaration is completed; a conflict between the two is an error.
func (g *Graph) Infer() error { return g.infer(nil) }

// infer is Infer with the table's index made already (see Validate), or
// made here when names is nil.
func (g *Graph) infer(names *nameindex.Index) error {
	var vals *ValueTable
	if names != nil {
		vals = valueTableOn(names)
	} else {
		vals = NewValueTable(len(g.Inputs) + len(g.Initializers) + len(g.Nodes))
	}
	isInput := make(map[string]bool, len(g.Inputs))
	for _, v := range g.Inputs {
		vals.Set(v.Name, v)
		isInput[v.Name] = true
	}
	for _, t := range g.Initializers {
		if t == nil {
			return errors.New("graph has a nil initializer")
		}
		if isInput[t.Name] {
			// An input that shares a name with an initializer may be fed at
			// run time, so its content is not known in advance.
			continue
		}
		vals.Set(t.Name, ValueInfo{Name: t.Name, DType: t.DType, Shape: DimsOf(t.Shape...), RankKnown: true, Const: t})
	}
	for _, n := range g.Nodes {
		if n == nil {
			return errors.New("graph has a nil node")
		}
		in := make([]ValueInfo, len(n.Inputs))
		for i, name := range n.Inputs {
			if name == "" {
				continue
			}
			v, ok := vals.lookupShared(name)
			if !ok {
				return nodeErrorf(n, "input %q is not defined before the node", name)
			}
			in[i] = v
		}
		outs, err := InferNode(n, in)
		if err != nil {
			return err
		}
		for _, o := range outs {
			if o.Name != "" {
				vals.Set(o.Name, o)
			}
		}
	}
	for i := range g.Outputs {
		decl := &g.Outputs[i]
		got, ok := vals.Lookup(decl.Name)
		if !ok {
			return fmt.Errorf("graph output %q is not defined", decl.Name)
		}
		if err := mergeDeclared(decl, got); err != nil {
			return fmt.Errorf("graph output %q: %w", decl.Name, err)
		}
	}
	g.Values = vals
	return nil
}

// mergeDeclared completes decl with what inference found, and reports
// where they disagree.
func mergeDeclared(decl *ValueInfo, got ValueInfo) error {
	if err := mergeDeclaredKind(decl, got); err != nil {
		return err
	}
	if got.DType != Undefined && decl.DType != Undefined && decl.DType != got.DType {
		return fmt.Errorf("declared dtype %s, but it is computed as %s", decl.DType, got.DType)
	}
	if decl.DType == Undefined {
		decl.DType = got.DType
	}
	if !got.RankKnown {
		return nil
	}
	if !decl.RankKnown {
		decl.Shape = cloneDims(got.Shape)
		decl.RankKnown = true
		return nil
	}
	if len(decl.Shape) != len(got.Shape) {
		return fmt.Errorf("declared shape %s, but it is computed as %s (rank %d vs %d)",
			fmtDims(decl.Shape), fmtDims(got.Shape), len(decl.Shape), len(got.Shape))
	}
	merged := cloneDims(decl.Shape)
	for i, d := range decl.Shape {
		gd := got.Shape[i]
		switch {
		case !gd.Known():
		case !d.Known():
			merged[i] = Dim{Size: gd.Size}
		case d.Size != gd.Size:
			return fmt.Errorf("declared shape %s, but it is computed as %s (axis %d: %d vs %d)",
				fmtDims(decl.Shape), fmtDims(got.Shape), i, d.Size, gd.Size)
		}
	}
	decl.Shape = merged // only once all of it agrees: a failed merge changes nothing
	return nil
}

// ---- helpers shared by inference and validation ----

// isNilOp reports a missing op, including a typed nil pointer, which would
// panic as soon as an attribute is read.
func isNilOp(op Op) bool {
	if op == nil {
		return true
	}
	v := reflect.ValueOf(op)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// opKind is op.Kind() that cannot panic on an out-of-range function code.
func opKind(op Op) string {
	if isNilOp(op) {
		return "<nil op>"
	}
	switch o := op.(type) {
	case *Binary:
		if int(o.Fn) >= len(binaryNames) {
			return fmt.Sprintf("Binary(fn %d)", o.Fn)
		}
	case *Unary:
		if int(o.Fn) >= len(unaryNames) {
			return fmt.Sprintf("Unary(fn %d)", o.Fn)
		}
	}
	return op.Kind()
}

func nodeErrorf(n *Node, format string, args ...any) error {
	return fmt.Errorf("node %q (%s): %s", n.Name, opKind(n.Op), fmt.Sprintf(format, args...))
}

// fmtDims prints a shape as [1 3 ? batch]: unknown dims print as their
// symbolic name or "?".
func fmtDims(ds []Dim) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range ds {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case d.Known():
			fmt.Fprint(&b, d.Size)
		case d.Param != "":
			b.WriteString(d.Param)
		default:
			b.WriteByte('?')
		}
	}
	b.WriteByte(']')
	return b.String()
}

func fmtShape(v ValueInfo) string {
	if !v.RankKnown {
		return "[unknown rank]"
	}
	return fmtDims(v.Shape)
}

func cloneDims(ds []Dim) []Dim {
	if ds == nil {
		return nil
	}
	return append([]Dim(nil), ds...)
}

var unknownDim = Dim{Size: -1}

func knownDim(n int64) Dim { return Dim{Size: n} }

// dimAt is axis i of v, or an unknown dim when the rank is unknown.
func dimAt(v ValueInfo, i int) Dim {
	if !v.RankKnown || i < 0 || i >= len(v.Shape) {
		return unknownDim
	}
	d := v.Shape[i]
	if d.Size < 0 {
		d.Size = -1
	}
	return d
}

func unknownDims(n int) []Dim {
	out := make([]Dim, n)
	for i := range out {
		out[i] = unknownDim
	}
	return out
}

func shaped(dt DType, dims []Dim) ValueInfo {
	return ValueInfo{DType: dt, Shape: dims, RankKnown: true}
}

// normAxis maps axis, which may count from the end, into [0, rank).
func normAxis(axis int64, rank int) (int, bool) {
	if axis < -int64(rank) || axis >= int64(rank) {
		return 0, false
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis), true
}

// arith is int64 arithmetic that remembers overflow instead of wrapping, so
// that absurd shapes are reported rather than silently turned negative.
type arith struct{ overflow bool }

func (a *arith) add(x, y int64) int64 {
	if (y > 0 && x > math.MaxInt64-y) || (y < 0 && x < math.MinInt64-y) {
		a.overflow = true
		return 0
	}
	return x + y
}

func (a *arith) sub(x, y int64) int64 {
	if (y < 0 && x > math.MaxInt64+y) || (y > 0 && x < math.MinInt64+y) {
		a.overflow = true
		return 0
	}
	return x - y
}

func (a *arith) mul(x, y int64) int64 {
	if x == 0 || y == 0 {
		return 0
	}
	p := x * y
	if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
		a.overflow = true
		return 0
	}
	return p
}

// floorDiv divides rounding toward negative infinity; y > 0.
func floorDiv(x, y int64) int64 {
	q := x / y
	if x%y != 0 && x < 0 {
		q--
	}
	return q
}
