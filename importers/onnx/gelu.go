package onnximport

import (
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// convGelu reads ONNX Gelu (opset 20).
func convGelu(c *nodeCtx) error {
	op := &canon.Gelu{}
	switch a := c.str("approximate", "none"); a {
	case "none":
		op.Approximate = canon.GeluExact
	case "tanh":
		op.Approximate = canon.GeluTanh
	default:
		c.fail("approximate %q is not one of none, tanh", a)
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

// geluMatch is one Erf expansion of Gelu found in the file: the nodes it
// spans (by index in the file) and what the one Gelu node reads and writes.
type geluMatch struct {
	nodes []int // every node of the pattern; the last one writes out
	last  int
	x     string
	out   string
}

// erf-form constants: x/√2 or x·(1/√2), then 1 + erf, then ·0.5.
const (
	sqrt2    = math.Sqrt2
	invSqrt2 = 1 / math.Sqrt2
)

// findGelus finds the Erf expansions of exact Gelu that torch.onnx writes
// below opset 20:
//
//	d = Div(x, 1.4142135) or Mul(x, 0.70710677)
//	e = Erf(d); a = Add(e, 1)
//	y = Mul(Mul(x, a), 0.5) or Mul(Mul(x, 0.5), a), operands in any order
//
// A match needs the constants to equal √2, 1/√2, 1 and 0.5 within float32
// rounding, and each intermediate value to have no other reader; anything
// else leaves the Erf to be read as a plain Erf.
func (im *importer) findGelus(nodes []*onnxpb.NodeProto) map[int]*geluMatch {
	if im.opset < 9 { // Erf-9
		return nil
	}
	// The tables below hold every node: not worth making without an Erf.
	if !slices.ContainsFunc(nodes, func(n *onnxpb.NodeProto) bool { return n.GetOpType() == "Erf" }) {
		return nil
	}
	producer := map[string]int{}
	readers := map[string][]int{}
	for i, n := range nodes {
		for _, o := range n.Output {
			if o != "" {
				producer[o] = i
			}
		}
		for _, in := range n.Input {
			if in != "" {
				readers[in] = append(readers[in], i)
			}
		}
	}
	std := func(i int, opType string, inputs int) bool {
		n := nodes[i]
		d := n.GetDomain()
		return n.GetOpType() == opType && (d == "" || d == "ai.onnx") && len(n.Input) == inputs && len(n.Output) == 1 && n.Output[0] != ""
	}
	// only is the single reader of value v, when v is no graph output.
	only := func(v string) (int, bool) {
		if r := readers[v]; len(r) == 1 && !im.outputs[v] && im.uses.count(v) == 1 {
			return r[0], true
		}
		return 0, false
	}
	// isConst reports whether value v is a one-element constant equal to
	// want within float32 rounding.
	isConst := func(v string, want float64) bool {
		t := im.inits[v]
		if t == nil {
			j, ok := producer[v]
			if !ok || !std(j, "Constant", 0) {
				return false
			}
			t = constantValue(im, nodes[j])
		}
		if t == nil || !t.DType.IsFloat() || t.NumElements() != 1 || len(t.Shape) > 1 {
			return false
		}
		f, err := t.Float64s()
		return err == nil && math.Abs(f[0]-want) <= 0x1p-23*want
	}
	// other returns the operand of binary node i that is not v.
	other := func(i int, v string) (string, bool) {
		in := nodes[i].Input
		switch v {
		case in[0]:
			return in[1], true
		case in[1]:
			return in[0], true
		}
		return "", false
	}

	matches := map[int]*geluMatch{}
	used := map[int]bool{}
	for ei := range nodes {
		if !std(ei, "Erf", 1) {
			continue
		}
		m := im.matchGelu(ei, nodes, producer, std, only, isConst, other)
		if m == nil {
			continue
		}
		clash := false
		for _, i := range m.nodes {
			clash = clash || used[i]
		}
		if clash {
			continue
		}
		for _, i := range m.nodes {
			used[i] = true
		}
		matches[m.last] = m
	}
	return matches
}

// matchGelu tries the pattern around Erf node ei.
func (im *importer) matchGelu(ei int, nodes []*onnxpb.NodeProto, producer map[string]int,
	std func(int, string, int) bool, only func(string) (int, bool),
	isConst func(string, float64) bool, other func(int, string) (string, bool)) *geluMatch {
	erf := nodes[ei]
	d := erf.Input[0]
	// The scaled input: Div(x, √2) or Mul(x, 1/√2) in either order.
	di, ok := producer[d]
	if _, single := only(d); !ok || !single {
		return nil
	}
	var x string
	switch {
	case std(di, "Div", 2) && isConst(nodes[di].Input[1], sqrt2):
		x = nodes[di].Input[0]
	case std(di, "Mul", 2) && isConst(nodes[di].Input[1], invSqrt2):
		x = nodes[di].Input[0]
	case std(di, "Mul", 2) && isConst(nodes[di].Input[0], invSqrt2):
		x = nodes[di].Input[1]
	default:
		return nil
	}
	// 1 + erf.
	e := erf.Output[0]
	ai, ok := only(e)
	if !ok || !std(ai, "Add", 2) {
		return nil
	}
	if one, _ := other(ai, e); !isConst(one, 1) {
		return nil
	}
	a := nodes[ai].Output[0]
	// Two Muls make x · a · 0.5 in some order.
	m1, ok := only(a)
	if !ok || !std(m1, "Mul", 2) {
		return nil
	}
	o1, _ := other(m1, a)
	pattern := []int{di, ei, ai, m1}
	last := m1
	switch {
	case o1 == x || isConst(o1, 0.5):
		// (x·a)·0.5 or (0.5·a)·x
		v := nodes[m1].Output[0]
		m2, ok := only(v)
		if !ok || !std(m2, "Mul", 2) {
			return nil
		}
		o2, _ := other(m2, v)
		if !(o1 == x && isConst(o2, 0.5) || o2 == x && isConst(o1, 0.5)) {
			return nil
		}
		pattern, last = append(pattern, m2), m2
	default:
		// (x·0.5)·a
		hi, ok := producer[o1]
		if _, single := only(o1); !ok || !single || !std(hi, "Mul", 2) {
			return nil
		}
		h, ok := other(hi, x)
		if !ok || !isConst(h, 0.5) {
			return nil
		}
		pattern = append(pattern, hi)
	}
	return &geluMatch{nodes: pattern, last: last, x: x, out: nodes[last].Output[0]}
}

// constantValue is the value of a Constant node given as a tensor or a
// float, or nil.
func constantValue(im *importer, n *onnxpb.NodeProto) *canon.Tensor {
	for _, a := range n.Attribute {
		switch a.GetName() {
		case "value":
			if tp := a.GetT(); tp != nil {
				if t, err := im.tr.Convert(tp, tp.RawData, tp.RawData != nil); err == nil {
					return t
				}
			}
		case "value_float":
			return canon.NewFloat32Tensor("", []int64{}, []float32{a.GetF()})
		}
	}
	return nil
}

func (m *geluMatch) span() []int { return m.nodes }

// findGeluMatches is findGelus as a fusion.
func findGeluMatches(im *importer, nodes []*onnxpb.NodeProto) map[int]fusedMatch {
	out := map[int]fusedMatch{}
	for i, m := range im.findGelus(nodes) {
		out[i] = m
	}
	return out
}

// convert emits the one Gelu node that stands for a matched expansion,
// named after the node that wrote the expansion's result.
func (m *geluMatch) convert(im *importer, name string) error {
	n := &onnxpb.NodeProto{Input: []string{m.x}, Output: []string{m.out}}
	c := &nodeCtx{im: im, n: n, name: name, op: "Gelu", attrs: map[string]*onnxpb.AttributeProto{}}
	if !im.vals.Has(m.x) {
		return c.errf("input %q is not defined before the node", m.x)
	}
	if err := c.emit(&canon.Gelu{Approximate: canon.GeluExact}, []string{m.x}, []string{m.out}); err != nil {
		return err
	}
	return c.err
}
