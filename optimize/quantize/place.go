package quantize

import (
	"github.com/modelbridge/modelbridge/canon"
)

// role is how a node is quantized.
type role int

const (
	roleNone role = iota
	// roleWeighted: Conv, Linear, MatMul with a constant weight; the
	// weight is int8 per output channel, the bias int32.
	roleWeighted
	// roleOwnRange: the output has its own calibrated range (Add, Mul,
	// average pools, Concat).
	roleOwnRange
	// roleShared: the output reuses the input's quantization (MaxPool,
	// Resize, and the reshapes, which move values without changing them).
	roleShared
	// roleMove: a reshape-like op, quantized only when its input already is.
	roleMove
)

// Class names a group of quantized nodes, for reports and for leaving a
// whole group float when ONNX Runtime runs it slower quantized.
func Class(n *canon.Node, g *canon.Graph) string {
	switch op := n.Op.(type) {
	case *canon.Conv:
		if op.Group > 1 {
			if w, ok := staticShapeOf(g, n.Inputs[1]); ok && len(w) > 1 && w[1] == 1 {
				return "depthwise Conv"
			}
			return "grouped Conv"
		}
		return "Conv"
	case *canon.MaxPool, *canon.AveragePool, *canon.GlobalAveragePool:
		return "pooling"
	case *canon.Reshape, *canon.Flatten, *canon.Transpose, *canon.Squeeze, *canon.Unsqueeze:
		return "reshape"
	}
	return n.Op.Kind()
}

func staticShapeOf(g *canon.Graph, name string) ([]int64, bool) {
	if t := constOf(g, name); t != nil {
		return t.Shape, true
	}
	return g.Values.Get(name).StaticShape()
}

// constOf is the value's content when it is known before running.
func constOf(g *canon.Graph, name string) *canon.Tensor {
	if name == "" {
		return nil
	}
	if v, ok := g.Values.Lookup(name); ok && v.Const != nil {
		return v.Const
	}
	return g.Initializer(name)
}

func isF32(g *canon.Graph, name string) bool {
	return name != "" && g.Values.Get(name).DType == canon.Float32
}

// staticRole says how n is quantized, and which of its inputs are the
// activations that get a QuantizeLinear/DequantizeLinear pair.
func staticRole(n *canon.Node, g *canon.Graph) (role, []string) {
	if len(n.Outputs) == 0 || !isF32(g, n.Outputs[0]) {
		return roleNone, nil
	}
	for _, o := range n.Outputs[1:] {
		if o != "" { // MaxPool's indices, when read, stay float-computed
			return roleNone, nil
		}
	}
	act := func(names ...string) []string {
		var out []string
		for _, s := range names {
			if s == "" || constOf(g, s) != nil {
				continue
			}
			out = append(out, s)
		}
		return out
	}
	switch op := n.Op.(type) {
	case *canon.Conv:
		if w := constOf(g, n.Inputs[1]); w != nil && w.DType == canon.Float32 && isF32(g, n.Inputs[0]) && constOf(g, n.Inputs[0]) == nil && biasOK(g, n, 2) {
			return roleWeighted, act(n.Inputs[0])
		}
	case *canon.Linear:
		if w := constOf(g, n.Inputs[1]); w != nil && w.DType == canon.Float32 && len(w.Shape) == 2 && op.Alpha == 1 && (op.Beta == 1 || len(n.Inputs) < 3 || n.Inputs[2] == "") &&
			isF32(g, n.Inputs[0]) && constOf(g, n.Inputs[0]) == nil && biasOK(g, n, 2) {
			return roleWeighted, act(n.Inputs[0])
		}
	case *canon.MatMul:
		if w := constOf(g, n.Inputs[1]); w != nil && w.DType == canon.Float32 && len(w.Shape) == 2 && isF32(g, n.Inputs[0]) && constOf(g, n.Inputs[0]) == nil {
			return roleWeighted, act(n.Inputs[0])
		}
	case *canon.Binary:
		if (op.Fn == canon.Add || op.Fn == canon.Mul) && isF32(g, n.Inputs[0]) && isF32(g, n.Inputs[1]) {
			if a := act(n.Inputs...); len(a) > 0 {
				return roleOwnRange, a
			}
		}
	case *canon.AveragePool, *canon.GlobalAveragePool:
		if isF32(g, n.Inputs[0]) {
			return roleOwnRange, act(n.Inputs[0])
		}
	case *canon.Concat:
		if a := act(n.Inputs...); len(a) == len(n.Inputs) {
			return roleOwnRange, a
		}
	case *canon.MaxPool:
		if len(n.Outputs) == 1 && isF32(g, n.Inputs[0]) {
			return roleShared, act(n.Inputs[0])
		}
	case *canon.Resize:
		if isF32(g, n.Inputs[0]) {
			return roleShared, act(n.Inputs[0])
		}
	case *canon.Reshape, *canon.Flatten, *canon.Transpose, *canon.Squeeze, *canon.Unsqueeze:
		if isF32(g, n.Inputs[0]) {
			return roleMove, act(n.Inputs[0])
		}
	}
	return roleNone, nil
}

// biasOK: the bias, when present, is a constant float32 vector.
func biasOK(g *canon.Graph, n *canon.Node, i int) bool {
	if len(n.Inputs) <= i || n.Inputs[i] == "" {
		return true
	}
	b := constOf(g, n.Inputs[i])
	return b != nil && b.DType == canon.Float32 && len(b.Shape) == 1
}

// plan is where the quantization goes.
type plan struct {
	roles map[*canon.Node]role
	// acts are the activation tensors to quantize, in graph order.
	acts   []string
	actSet map[string]bool
	// shareFrom maps a tensor to the tensor whose quantization it reuses.
	shareFrom map[string]string
	// foldable maps a Relu/Clip to the quantized node whose output it reads.
	foldable map[*canon.Node]*canon.Node
}

func (p *plan) addAct(t string) {
	if !p.actSet[t] {
		p.actSet[t] = true
		p.acts = append(p.acts, t)
	}
}

// planStatic chooses the nodes to quantize; keep says which to leave float.
func planStatic(g *canon.Graph, keep func(*canon.Node) bool) *plan {
	p := &plan{roles: map[*canon.Node]role{}, actSet: map[string]bool{}, shareFrom: map[string]string{}, foldable: map[*canon.Node]*canon.Node{}}
	for _, n := range g.Nodes {
		r, acts := staticRole(n, g)
		if r == roleNone || (keep != nil && keep(n)) {
			continue
		}
		if r == roleMove && !p.actSet[n.Inputs[0]] {
			continue
		}
		p.roles[n] = r
		for _, a := range acts {
			p.addAct(a)
		}
		p.addAct(n.Outputs[0])
		if r == roleShared || r == roleMove {
			p.shareFrom[n.Outputs[0]] = n.Inputs[0]
		}
	}
	consumers := g.Consumers()
	producers := g.Producers()
	for _, n := range g.Nodes {
		if _, _, ok := activationBounds(n, g); !ok {
			continue
		}
		in := n.Inputs[0]
		prod := producers[in]
		if prod == nil || (p.roles[prod] != roleWeighted && p.roles[prod] != roleOwnRange) || len(consumers[in]) != 1 || isOutput(g, in) || !isF32(g, n.Outputs[0]) {
			continue
		}
		p.foldable[n] = prod
	}
	return p
}

// activationBounds are the clamp bounds of a Relu or a constant Clip.
func activationBounds(n *canon.Node, g *canon.Graph) (lo, hi float64, ok bool) {
	switch op := n.Op.(type) {
	case *canon.Unary:
		if op.Fn == canon.Relu {
			return 0, inf, true
		}
	case *canon.Clip:
		for _, in := range n.Inputs[1:] {
			if in != "" {
				return 0, 0, false
			}
		}
		return float64(op.Min), float64(op.Max), true
	}
	return 0, 0, false
}

func isOutput(g *canon.Graph, name string) bool {
	for _, o := range g.Outputs {
		if o.Name == name {
			return true
		}
	}
	return false
}
