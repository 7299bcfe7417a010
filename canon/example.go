package canon

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// exampleF32 is a constant float32 input with deterministic values in
// [-1, 1], the same on every run.
func exampleF32(shape ...int64) ExampleInput {
	n := NumElements(shape)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.Sin(float64(i)*1.7 + 0.3))
	}
	return ExampleInput{DType: Float32, Shape: shape, Const: NewFloat32Tensor("", shape, v)}
}

// positive returns a copy of a float32 tensor with every value made > 0
// (variances, divisors).
func positive(t *Tensor) *Tensor {
	out := *t
	out.Data = make([]byte, len(t.Data))
	for i := 0; i+4 <= len(t.Data); i += 4 {
		f := math.Float32frombits(binary.LittleEndian.Uint32(t.Data[i:]))
		binary.LittleEndian.PutUint32(out.Data[i:], math.Float32bits(float32(math.Abs(float64(f)))+0.5))
	}
	return &out
}

// ExampleGraph builds a one-node graph from the op kind's Example: graph
// inputs x0, x1... for the variable inputs, initializers w1, w2... for
// the constants (in the layout their role needs), and outputs y0, y1....
// The graph is validated.
func (d *OpDef) ExampleGraph() (*Graph, error) {
	if d.Example == nil {
		return nil, fmt.Errorf("op %s has no example", d.Kind)
	}
	ex := d.Example()
	g := &Graph{Name: "example_" + d.Kind}
	n := &Node{Name: d.Kind + "_0", Op: ex.Op}
	for i, in := range ex.Inputs {
		switch {
		case in.DType == Undefined && in.Const == nil:
			n.Inputs = append(n.Inputs, "")
		case in.Const != nil:
			t := *in.Const
			t.Name = "w" + strconv.Itoa(i)
			g.Initializers = append(g.Initializers, &t)
			n.Inputs = append(n.Inputs, t.Name)
		default:
			name := "x" + strconv.Itoa(i)
			g.Inputs = append(g.Inputs, ValueInfo{Name: name, DType: in.DType, Shape: DimsOf(in.Shape...), RankKnown: true, Kind: in.Kind})
			n.Inputs = append(n.Inputs, name)
		}
	}
	outs := max(ex.Outputs, 1)
	for i := range outs {
		n.Outputs = append(n.Outputs, "y"+strconv.Itoa(i))
	}
	g.Nodes = []*Node{n}
	AssignLayouts(g)
	if err := g.Infer(); err != nil {
		return nil, fmt.Errorf("example of %s: %w", d.Kind, err)
	}
	for _, o := range n.Outputs {
		v := g.Values.Get(o)
		v.Name = o
		v.Const = nil
		g.Outputs = append(g.Outputs, v)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("example of %s: %w", d.Kind, err)
	}
	return g, nil
}
