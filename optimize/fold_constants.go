package optimize

import (
	"errors"
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// maxFoldElements bounds the tensors constant folding creates: folding an
// Expand or a Tile into a huge initializer would trade a cheap op for a
// model many times bigger.
const maxFoldElements = 1 << 20

// maxFoldMemory bounds what evaluating one constant node may allocate,
// scratch included (a Conv's im2col columns can be far larger than its
// output): past it the node is left to be computed at run time.
const maxFoldMemory = 256 << 20

// foldConstants replaces nodes whose outputs are fixed before the graph runs
// by initializers. Outputs that shape inference already computed (Shape of a
// static shape, the shape arithmetic after it) are taken from g.Values; other
// nodes whose inputs are all constant are run through the interpreter.
// Outputs that are graph outputs stay computed by nodes.
func foldConstants(g *canon.Graph) (bool, error) {
	// First fold every node that does not expand its constants (three
	// Slices of one weight and the Concat after them free the weight
	// together); keep that only if the live parameters did not grow, else
	// fold only what frees its own inputs.
	trial := Clone(g)
	changed, err := foldConstantsRule(trial, true)
	if err != nil {
		return false, err
	}
	if changed {
		before, err1 := liveParams(g)
		after, err2 := liveParams(trial)
		if err1 == nil && err2 == nil && after <= before {
			g.Nodes, g.Initializers, g.Values = trial.Nodes, trial.Initializers, trial.Values
			return true, nil
		}
	}
	return foldConstantsRule(g, false)
}

// liveParams counts the float parameters g keeps once dead nodes and
// initializers are gone.
func liveParams(g *canon.Graph) (int64, error) {
	c := Clone(g)
	if _, err := eliminateDead(c); err != nil {
		return 0, err
	}
	return ParamCount(c), nil
}

// foldConstantsRule is fold_constants; shared selects foldKeepsSize's
// accounting.
func foldConstantsRule(g *canon.Graph, shared bool) (bool, error) {
	if err := g.Infer(); err != nil {
		return false, err
	}
	ix := newIndex(g)
	known := map[string]*canon.Tensor{} // constants found so far, by value name
	for name, t := range ix.inits {
		known[name] = t
	}
	dead := map[*canon.Node]bool{}
	var added []*canon.Tensor
	memo := foldMemo{}
	for _, n := range g.Nodes {
		if len(n.Outputs) == 0 || anyOutput(ix, n) {
			continue
		}
		key := memo.key(n, known)
		outs, done := memo[key]
		if !done || key == "" {
			var err error
			if outs, err = constOutputs(g, n, known); err != nil {
				return false, fmt.Errorf("%s: %w", nodeRef(n), err)
			}
			if key != "" && outs != nil {
				memo[key] = outs
			}
		}
		if outs == nil || !foldKeepsSize(ix, n, outs, known, shared) {
			continue
		}
		for i, o := range n.Outputs {
			if o == "" {
				continue
			}
			t := *outs[i] // share the data, set the name
			t.Name = o
			known[o] = &t
			added = append(added, &t)
		}
		dead[n] = true
	}
	if len(dead) == 0 {
		return false, nil
	}
	removeNodes(g, dead)
	g.Initializers = append(g.Initializers, added...)
	// A folded weight gets the layout its readers need, like an imported one.
	canon.AssignLayouts(g)
	return true, nil
}

// shapeFoldElements is the size up to which an integer or boolean result is
// folded even when it is bigger than the constants it reads: shape
// arithmetic (Shape of a static value, Gather, Concat of dims) reads no
// constant at all.
const shapeFoldElements = 64

// foldKeepsSize tells whether folding n keeps the model from growing: its
// floating-point results hold no more elements than the floating-point
// constants that only n reads (which folding frees; with shared, than all
// the constants it reads: the fold does not expand, and the caller checks
// that the whole graph did not grow), and its integer or
// boolean results are either no bigger than the constants it reads or small
// (shapes). Expanding or tiling a constant, or turning shape arithmetic into
// new float tensors, is left to run: the default pipeline never adds
// parameters.
func foldKeepsSize(ix *index, n *canon.Node, outs []*canon.Tensor, known map[string]*canon.Tensor, shared bool) bool {
	if _, ok := n.Op.(*canon.Constant); ok {
		return true
	}
	var freedFloat, in, outFloat, outInt int64
	for _, name := range n.Inputs {
		t := known[name]
		if t == nil || name == "" {
			continue
		}
		e := canon.NumElements(t.Shape)
		in += e
		if t.DType.IsFloat() && len(ix.consumers[name]) == 1 {
			freedFloat += e
		}
	}
	small := true
	for _, t := range outs {
		if t == nil {
			continue
		}
		e := canon.NumElements(t.Shape)
		if t.DType.IsFloat() {
			outFloat += e
			continue
		}
		outInt += e
		if e > shapeFoldElements {
			small = false
		}
	}
	if shared {
		freedFloat = in // not expanding: the caller checks the whole graph
		if outFloat > 1 && slices.ContainsFunc(outs, uniformFloat) {
			// A constant fill (zero initial states) carries one value:
			// stored per reader it would only add bytes.
			return false
		}
	}
	return outFloat <= freedFloat && (outInt <= in || small)
}

func anyOutput(ix *index, n *canon.Node) bool {
	for _, o := range n.Outputs {
		if ix.isOutput[o] {
			return true
		}
	}
	return false
}

// constOutputs returns the values of n's outputs when they are constant and
// small enough to store, or nil.
func constOutputs(g *canon.Graph, n *canon.Node, known map[string]*canon.Tensor) ([]*canon.Tensor, error) {
	if canon.Draws(n) {
		return nil, nil // random draws differ run to run: never a constant
	}
	if c, ok := n.Op.(*canon.Constant); ok {
		if c.Value == nil || c.Value.CheckData() != nil {
			return nil, nil
		}
		return []*canon.Tensor{c.Value}, nil
	}
	if makesNonTensor(g, n) {
		return nil, nil // a sequence or an optional is no initializer
	}
	// Inference may know the result without running anything.
	fromInfer := make([]*canon.Tensor, len(n.Outputs))
	all := true
	for i, o := range n.Outputs {
		if o == "" {
			continue
		}
		v := g.Values.Get(o)
		if v.Const == nil || v.Const.CheckData() != nil {
			all = false
			break
		}
		fromInfer[i] = v.Const
	}
	if all {
		return fromInfer, nil
	}
	inputs := make([]*canon.Tensor, len(n.Inputs))
	for i, in := range n.Inputs {
		if in == "" {
			continue
		}
		t := known[in]
		if t == nil {
			return nil, nil
		}
		if !foldableDType(t.DType) {
			return nil, nil
		}
		inputs[i] = t
	}
	if len(n.Inputs) == 0 {
		return nil, nil
	}
	var outInfo []canon.ValueInfo
	for _, o := range n.Outputs {
		if o == "" {
			continue
		}
		v := g.Values.Get(o)
		s, ok := v.StaticShape()
		if !ok || canon.NumElements(s) < 0 || canon.NumElements(s) > maxFoldElements || !foldableDType(v.DType) {
			return nil, nil
		}
		outInfo = append(outInfo, canon.ValueInfo{Name: o, DType: v.DType, Shape: canon.DimsOf(s...), RankKnown: true})
	}
	return evalNode(n, inputs, outInfo)
}

// foldableDType lists the dtypes the interpreter carries without
// conversion, so that a folded value is bit-identical to the computed one.
func foldableDType(d canon.DType) bool {
	switch d {
	case canon.Float32, canon.Int64, canon.Int32, canon.Bool:
		return true
	}
	return false
}

// evalNode runs one node on constant inputs with the interpreter: a tiny
// graph whose initializers are the inputs.
func evalNode(n *canon.Node, inputs []*canon.Tensor, outs []canon.ValueInfo) ([]*canon.Tensor, error) {
	sub := &canon.Graph{Name: "fold", Nodes: []*canon.Node{cloneNode(n)}, Outputs: outs}
	seen := map[string]bool{}
	for i, in := range n.Inputs {
		if in == "" || seen[in] {
			continue
		}
		seen[in] = true
		t := *inputs[i]
		t.Name = in
		t.Layout = inputs[i].Layout
		sub.Initializers = append(sub.Initializers, &t)
	}
	p, err := interp.New(sub)
	if err != nil {
		return nil, fmt.Errorf("evaluating constant node: %w", err)
	}
	p.SetMemoryLimit(min(interp.MemoryLimit(), maxFoldMemory))
	res, err := p.Run(nil)
	if errors.Is(err, interp.ErrMemory) {
		return nil, nil // too costly to fold; leave it computed
	}
	if err != nil {
		return nil, fmt.Errorf("evaluating constant node: %w", err)
	}
	out := make([]*canon.Tensor, len(n.Outputs))
	for i, o := range n.Outputs {
		if o == "" {
			continue
		}
		t := res[o]
		if t == nil {
			return nil, fmt.Errorf("interpreter returned no value for %q", o)
		}
		want := outs[indexOf(outs, o)]
		if t.DType != want.DType {
			return nil, nil // not bit-exact to fold; leave it computed
		}
		out[i] = t
	}
	return out, nil
}

func indexOf(vs []canon.ValueInfo, name string) int {
	for i, v := range vs {
		if v.Name == name {
			return i
		}
	}
	return -1
}

// uniformFloat reports a float tensor of more than one element whose
// elements are all equal.
func uniformFloat(t *canon.Tensor) bool {
	if t == nil || !t.DType.IsFloat() || canon.NumElements(t.Shape) < 2 {
		return false
	}
	v, err := t.Float64s()
	if err != nil {
		return false
	}
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return true
}
