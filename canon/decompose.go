package canon

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Expander is what an OpDef's Decompose writes a node's expansion with:
// it reads the node and its input types, and adds nodes computing the
// node's outputs from its inputs. Names of new values and constants start
// with the node's first output name, so they stay unique in the graph.
type Expander struct {
	// Node is the node being expanded.
	Node *Node
	// In holds the types of the node's inputs (zero for an absent one).
	In []ValueInfo

	nodes  []*Node
	consts []*Tensor
	taken  func(string) bool
	next   int
}

// Input is the name of the node's input slot i ("" when absent).
func (e *Expander) Input(i int) string {
	if i < len(e.Node.Inputs) {
		return e.Node.Inputs[i]
	}
	return ""
}

// Output is the name of the node's output slot i ("" when absent).
func (e *Expander) Output(i int) string {
	if i < len(e.Node.Outputs) {
		return e.Node.Outputs[i]
	}
	return ""
}

// DType is the dtype of the node's input slot i.
func (e *Expander) DType(i int) DType {
	if i < len(e.In) {
		return e.In[i].DType
	}
	return Undefined
}

// Shape is the static shape of input slot i, or nil when not static.
func (e *Expander) Shape(i int) []int64 {
	if i < len(e.In) {
		if s, ok := e.In[i].StaticShape(); ok {
			return s
		}
	}
	return nil
}

// Errorf is an error naming the node: the op cannot be expanded in this
// case (say why and what to do).
func (e *Expander) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s node %q cannot be expanded: %s", e.Node.Op.Kind(), e.Node.Name, fmt.Sprintf(format, args...))
}

// fresh is a new value name derived from the node's first output.
func (e *Expander) fresh(hint string) string {
	base := e.Node.Name
	if o := e.Output(0); o != "" {
		base = o
	}
	for {
		e.next++
		name := base + "_" + hint + strconv.Itoa(e.next)
		if e.taken == nil || !e.taken(name) {
			return name
		}
	}
}

// Add adds a node running op on inputs, writing outputs; an output given as
// "" gets a fresh name. It returns the output names.
func (e *Expander) Add(op Op, inputs []string, outputs ...string) []string {
	if len(outputs) == 0 {
		outputs = []string{""}
	}
	outs := append([]string(nil), outputs...)
	for i, o := range outs {
		if o == "" {
			outs[i] = e.fresh(op.Kind())
		}
	}
	e.nodes = append(e.nodes, &Node{Name: e.fresh(op.Kind() + "_node"), Op: op, Inputs: append([]string(nil), inputs...), Outputs: outs})
	return outs
}

// Op adds a one-output node and returns its output's name.
func (e *Expander) Op(op Op, inputs ...string) string { return e.Add(op, inputs)[0] }

// Const adds a constant (an initializer) and returns its name.
func (e *Expander) Const(t *Tensor) string {
	c := *t
	c.Name = e.fresh("const")
	e.consts = append(e.consts, &c)
	return c.Name
}

// Scalar adds a rank-0 constant of float dtype dt holding v (rounded to
// dt), for the constants of an expansion in the data's own precision.
func (e *Expander) Scalar(dt DType, v float64) string {
	var t *Tensor
	switch dt {
	case Float64:
		t = &Tensor{DType: Float64, Data: binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))}
	case Float16, BFloat16:
		t = &Tensor{DType: dt, Data: encodeHalf(dt, v)}
	default:
		t = NewFloat32Tensor("", nil, []float32{float32(v)})
	}
	return e.Const(t)
}

// encodeHalf is the little-endian 16-bit encoding of v in float16 or
// bfloat16.
func encodeHalf(dt DType, v float64) []byte {
	var b uint16
	if dt == BFloat16 {
		b = Float32ToBFloat16(float32(v))
	} else {
		b = Float32ToHalf(float32(v))
	}
	return []byte{byte(b), byte(b >> 8)}
}

// Expansion is a node's decomposition: the nodes replacing it and the
// constants they read.
type Expansion struct {
	Nodes  []*Node
	Consts []*Tensor
}

// DecomposeNode expands node n whose inputs have types in, with taken
// telling the names already used in the graph. It fails, naming the node,
// when the kind has no Decompose (with the kind's reason) or the case is
// one the expansion does not cover.
func DecomposeNode(n *Node, in []ValueInfo, taken func(string) bool) (Expansion, error) {
	d := DefOf(n.Op)
	if d == nil {
		return Expansion{}, fmt.Errorf("node %q: unknown op", n.Name)
	}
	if d.Decompose == nil {
		return Expansion{}, fmt.Errorf("%s node %q has no expansion into other ops (%s)", d.Kind, n.Name, d.Without.Decompose)
	}
	e := &Expander{Node: n, In: in, taken: taken}
	if err := d.Decompose(e); err != nil {
		return Expansion{}, err
	}
	return Expansion{Nodes: e.nodes, Consts: e.consts}, nil
}

// maxExpansionDepth bounds nested expansions (an expansion's node expanded
// again): canon's expansions nest two or three deep.
const maxExpansionDepth = 8

// Decompose returns a copy of g in which every node that keep rejects is
// replaced by its expansion, expanded again where the expansion holds ops
// keep rejects. It is the fallback of a writer whose format lacks an op;
// keep says what the format writes (and may look at the node's attributes
// or types, which are inferred when g's are not). The result's value types
// are set. The copy shares g's nodes and weights; g itself is returned when
// keep takes every node.
func Decompose(g *Graph, keep func(n *Node, types func(string) ValueInfo) bool) (*Graph, int, error) {
	out := *g
	out.Nodes = nil
	out.Initializers = append([]*Tensor(nil), g.Initializers...)
	if !slices.ContainsFunc(g.Nodes, func(n *Node) bool { return !keep(n, func(name string) ValueInfo { return g.Values.Get(name) }) }) {
		return g, 0, nil
	}
	vals := g.Values
	if vals == nil {
		typed := *g
		typed.Outputs = slices.Clone(g.Outputs)
		if err := typed.Infer(); err != nil {
			return nil, 0, err
		}
		vals = typed.Values
	}
	types := func(name string) ValueInfo { return vals.Get(name) }
	extra := map[string]bool{}
	taken := func(name string) bool {
		_, ok := vals.Lookup(name)
		return ok || extra[name]
	}
	expanded := 0
	var add func(n *Node, depth int) error
	add = func(n *Node, depth int) error {
		if keep(n, types) {
			out.Nodes = append(out.Nodes, n)
			return nil
		}
		if depth >= maxExpansionDepth {
			return fmt.Errorf("%s node %q: expansions nest deeper than %d", n.Op.Kind(), n.Name, maxExpansionDepth)
		}
		in := make([]ValueInfo, len(n.Inputs))
		for i, name := range n.Inputs {
			if name != "" {
				in[i] = vals.Get(name)
			}
		}
		x, err := DecomposeNode(n, in, taken)
		if err != nil {
			return err
		}
		expanded++
		for _, c := range x.Consts {
			extra[c.Name] = true
			out.Initializers = append(out.Initializers, c)
			vals.Set(c.Name, ValueInfo{Name: c.Name, DType: c.DType, Shape: DimsOf(c.Shape...), RankKnown: true, Const: c})
		}
		for _, m := range x.Nodes {
			mi := make([]ValueInfo, len(m.Inputs))
			for i, name := range m.Inputs {
				if name != "" {
					mi[i] = vals.Get(name)
				}
			}
			outs, err := InferNode(m, mi)
			if err != nil {
				return fmt.Errorf("expansion of %s node %q: %w", n.Op.Kind(), n.Name, err)
			}
			for i, o := range m.Outputs {
				if _, orig := vals.Lookup(o); !orig || extra[o] {
					extra[o] = true
					vals.Set(o, outs[i])
				}
			}
			if err := add(m, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	// Expansion adds types for the new values: work on a copy of the map.
	vals = vals.Clone()
	for _, n := range g.Nodes {
		if err := add(n, 0); err != nil {
			return nil, 0, err
		}
	}
	out.Values = vals
	return &out, expanded, nil
}
