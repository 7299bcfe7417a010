package canon

import (
	"fmt"
	"slices"
)

// The slots of OpDef that passes and backends query instead of keeping
// lists of kinds: float16 safety, accumulation length, axis remapping,
// decomposition, no-op detection and dtype-only inference. Every
// registered kind fills each slot or says why it has none (SlotGaps).

// Without gives the reason an OpDef slot is nil.
type Without struct {
	// Accumulation: why the op sums no products (elementwise kinds need
	// no reason).
	Accumulation string
	// RemapAxes: why the op cannot run on inputs in another axis order
	// (elementwise kinds need no reason: they commute with a Transpose).
	RemapAxes string
	// Decompose: why the op has no expansion into other canonical ops (a
	// primitive).
	Decompose string
	// Noop: why no attribute setting makes the op return its input
	// unchanged (views and inference identities need no reason).
	Noop string
}

// Default reasons shared by families of ops.
const (
	// SumsNothing: each output element comes from a bounded number of
	// input elements.
	SumsNothing = "sums no products: each output comes from a few input elements"
	// SumsNoProducts: the op sums or averages input elements, which the
	// rounding term (it counts products) leaves to the relative tolerance.
	SumsNoProducts = "sums input elements, not products (plain sums are left to the relative tolerance)"
	// NoRemapYet: the op's axis attributes could be mapped through a
	// permutation, but no rule is written.
	NoRemapYet = "no remap rule written yet (its axis attributes could be mapped through the permutation)"
	// Primitive: the op is one of canon's building blocks.
	Primitive = "a primitive: no exact expansion into other canonical ops"
	// AxesFixed: the op's meaning is tied to its input's axis order
	// (channels first, a fixed spatial layout, or an order of its own).
	AxesFixed = "its meaning depends on the input's axis order (channels first, heads before sequence, or row-major element order)"
)

// withReason fills the empty reasons of d's nil slots with w's: a family
// states its defaults once.
func withReason(d *OpDef, w Without) *OpDef {
	{
		if d.AccumulationLength == nil && d.Without.Accumulation == "" && !d.Traits.Elementwise {
			d.Without.Accumulation = w.Accumulation
		}
		if d.RemapAxes == nil && d.Without.RemapAxes == "" && !d.Traits.Elementwise {
			d.Without.RemapAxes = w.RemapAxes
		}
		if d.Decompose == nil && d.Without.Decompose == "" {
			d.Without.Decompose = w.Decompose
		}
		if d.NoopWhen == nil && d.Without.Noop == "" && !d.Traits.View {
			d.Without.Noop = w.Noop
			if d.Traits.InferenceIdentity {
				d.Without.Noop = "an inference identity: the identity pass removes it whatever its attributes"
			}
		}
	}
	return d
}

// InputShapes gives the static shape of a node's input slot i, or nil
// when it is absent or not static.
type InputShapes func(i int) []int64

// AccumulationOf is the number of products node n sums into each output
// element (0 for ops that sum none, or when the shapes it needs are
// unknown).
func AccumulationOf(n *Node, shapes InputShapes) int64 {
	d := DefOf(n.Op)
	if d == nil || d.AccumulationLength == nil {
		return 0
	}
	return max(d.AccumulationLength(n, shapes), 0)
}

// lastDimOf is the AccumulationLength of ops that sum over input slot's
// last axis (MatMul, Linear).
func lastDimOf(slot int) func(*Node, InputShapes) int64 {
	return func(_ *Node, shapes InputShapes) int64 {
		if s := shapes(slot); len(s) > 0 {
			return s[len(s)-1]
		}
		return 0
	}
}

// Remap is an op rewritten to run on inputs given in another axis order
// (see RemapAxes).
type Remap struct {
	// Op computes on the re-ordered inputs.
	Op Op
	// Slots are the input slots that carry the axis order; the others
	// (Clip's bounds, Split's sizes) are taken as they are.
	Slots []int
	// Outputs holds, per output, the permutation relating the original
	// output to the new one: original = Transpose(new, Outputs[i]). nil:
	// the new output is the original. The caller checks that an output's
	// rank is len(Outputs[i]).
	Outputs [][]int64
}

// RemapAxes answers: when node n's inputs in Remap.Slots arrive as x' with
// the original x = Transpose(x', perm), what op on x' computes n's outputs
// (up to the Transposes in Remap.Outputs)? ok is false when the kind does
// not commute with a Transpose this way. An elementwise op keeps its
// attributes; other kinds map their axis attributes through perm
// (OpDef.RemapAxes). A transpose-sinking pass and an NHWC layout pass both
// rely on it.
func RemapAxes(n *Node, perm []int64) (Remap, bool) {
	d := DefOf(n.Op)
	if d == nil || !isPerm(perm) {
		return Remap{}, false
	}
	if d.Traits.Elementwise {
		// When the inputs broadcast against each other every input carries
		// the layout; otherwise only input 0 does, and the rest are
		// layout-free scalars such as Clip's bounds.
		slots := []int{0}
		if d.Traits.Broadcasts {
			slots = slots[:0]
			for i := range n.Inputs {
				slots = append(slots, i)
			}
		}
		outs := make([][]int64, len(n.Outputs))
		for i := range outs {
			outs[i] = perm
		}
		return Remap{Op: n.Op, Slots: slots, Outputs: outs}, true
	}
	if d.RemapAxes == nil {
		return Remap{}, false
	}
	return d.RemapAxes(n, perm)
}

// isPerm reports whether p is a permutation of 0..len(p)-1.
func isPerm(p []int64) bool {
	seen := make([]bool, len(p))
	for _, a := range p {
		if a < 0 || int(a) >= len(p) || seen[a] {
			return false
		}
		seen[a] = true
	}
	return true
}

// remapAxis maps axis a (negative counts from the end) of an input of rank
// len(perm) through perm: the axis of the re-ordered input that holds it.
func remapAxis(a int64, perm []int64) (int64, bool) {
	ax, ok := normAxis(a, len(perm))
	if !ok {
		return 0, false
	}
	return perm[ax], true
}

// sameOrder is a Remap of a one-output op whose output keeps the layout of
// its inputs in slots.
func sameOrder(op Op, perm []int64, slots ...int) (Remap, bool) {
	return Remap{Op: op, Slots: slots, Outputs: [][]int64{perm}}, true
}

// allInputs lists every input slot of n.
func allInputs(n *Node) []int {
	s := make([]int, len(n.Inputs))
	for i := range s {
		s[i] = i
	}
	return s
}

// InferDTypes gives the dtypes of node n's outputs from its inputs'
// dtypes alone (Undefined for an absent optional input): the kind's
// OutputDTypes when set, else its Infer run with every input rank unknown.
func InferDTypes(n *Node, in []DType) ([]DType, error) {
	d := DefOf(n.Op)
	if d == nil {
		return nil, fmt.Errorf("node %q: unknown op", n.Name)
	}
	if d.OutputDTypes != nil {
		return d.OutputDTypes(n, in)
	}
	vis := make([]ValueInfo, len(in))
	for i, dt := range in {
		vis[i] = ValueInfo{DType: dt}
	}
	outs, err := InferNode(n, vis)
	if err != nil {
		return nil, err
	}
	dts := make([]DType, len(outs))
	for i, o := range outs {
		dts[i] = o.DType
	}
	return dts, nil
}

// SlotGap is an op kind that leaves a slot nil without saying why, or
// whose dtype-only inference fails on its example.
type SlotGap struct {
	Kind, Slot, Problem string
}

func (g SlotGap) String() string {
	return fmt.Sprintf("op %s: slot %s: %s", g.Kind, g.Slot, g.Problem)
}

// SlotGaps checks every registered kind's slots: each is filled or has a
// reason, and InferDTypes gives the example's output dtypes.
func SlotGaps() []SlotGap {
	var gaps []SlotGap
	for _, d := range Ops() {
		need := func(slot string, filled bool, reason string) {
			if !filled && reason == "" {
				gaps = append(gaps, SlotGap{d.Kind, slot, "nil without a reason in Without"})
			}
		}
		need("AccumulationLength", d.AccumulationLength != nil || d.Traits.Elementwise, d.Without.Accumulation)
		need("RemapAxes", d.RemapAxes != nil || d.Traits.Elementwise, d.Without.RemapAxes)
		need("Decompose", d.Decompose != nil, d.Without.Decompose)
		need("NoopWhen", d.NoopWhen != nil || d.Traits.View, d.Without.Noop)
		if p := dtypeProblem(d); p != "" {
			gaps = append(gaps, SlotGap{d.Kind, "OutputDTypes", p})
		}
	}
	return gaps
}

// dtypeProblem compares InferDTypes on d's example with full inference.
func dtypeProblem(d *OpDef) string {
	if d.Example == nil {
		return "no example to check it on"
	}
	g, err := d.ExampleGraph()
	if err != nil {
		return err.Error()
	}
	n := g.Nodes[0]
	in := make([]DType, len(n.Inputs))
	for i, name := range n.Inputs {
		if name != "" {
			in[i] = g.Values.Get(name).DType
		}
	}
	got, err := InferDTypes(n, in)
	if err != nil {
		return fmt.Sprintf("dtypes of the example's outputs from its input dtypes alone: %v (set OutputDTypes)", err)
	}
	want := make([]DType, len(n.Outputs))
	for i, o := range n.Outputs {
		want[i] = g.Values.Get(o).DType
	}
	if !slices.Equal(got, want) {
		return fmt.Sprintf("from the input dtypes alone the outputs are %v, inference with shapes says %v (set OutputDTypes)", got, want)
	}
	return ""
}

// Grouped is implemented by ops that split their channels into groups
// (Conv, ConvTranspose).
type Grouped interface {
	Groups() int64
}

// Groups is the Group attribute of a grouped convolution.
func (o *Conv) Groups() int64 { return o.Group }

// Groups is the Group attribute of a grouped transposed convolution.
func (o *ConvTranspose) Groups() int64 { return o.Group }

// GroupsOf is op's number of channel groups: 1 for ops that have none.
func GroupsOf(op Op) int64 {
	if g, ok := op.(Grouped); ok {
		return g.Groups()
	}
	return 1
}
