package quantize

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/optimize"
)

const inf = math.MaxFloat64

// rewriter builds the QDQ graph from a plan and calibrated ranges.
type rewriter struct {
	g       *canon.Graph
	p       *plan
	names   *optimize.Namer
	params  map[string]qparams
	actType canon.DType
	nodes   []*canon.Node
	inits   []*canon.Tensor
	// weightDQ memoizes the dequantized weight of a shared weight tensor.
	weightDQ map[string]weightQ
	// inputOf maps the dequantized copy of a graph input to the input.
	inputOf map[string]string
	// quantized maps a quantized tensor to its QuantizeLinear output.
	quantized map[string]string
	// rangeFrom maps a tensor to the tensor whose range sets its
	// quantization.
	rangeFrom map[string]string
	folded    int
}

type weightQ struct {
	value  string
	scales []float32
}

// rewriteStatic turns g (a copy the caller owns, with Values inferred)
// into its QDQ form in place.
func rewriteStatic(g *canon.Graph, p *plan, ranges map[string]Range, actType canon.DType) (*rewriter, error) {
	rw := &rewriter{g: g, p: p, names: optimize.NewNamer(g), params: map[string]qparams{}, actType: actType, weightDQ: map[string]weightQ{}, inputOf: map[string]string{}, quantized: map[string]string{}, rangeFrom: map[string]string{}}
	paramsOf := func(t string) (qparams, bool) {
		if src, ok := p.shareFrom[t]; ok {
			q, ok := rw.params[src]
			return q, ok
		}
		src := t
		for seen := 0; rw.rangeFrom[src] != "" && seen < len(p.acts); seen++ {
			src = rw.rangeFrom[src]
		}
		r, ok := ranges[src]
		if !ok {
			return qparams{}, false
		}
		return activationParams(r, actType), true
	}
	// Fold Relu/Clip whose clamp the quantization of their output
	// repeats exactly.
	skip := map[*canon.Node]bool{}
	for _, n := range g.Nodes {
		prod, ok := p.foldable[n]
		if !ok {
			continue
		}
		r, ok := ranges[n.Outputs[0]]
		if !ok {
			continue
		}
		q := activationParams(r, actType)
		lo, hi, _ := activationBounds(n, g)
		qmin, qmax := canon.QuantRange(q.dtype)
		s := float64(q.scale)
		if !(lo <= s*(float64(qmin-q.zero)+0.45) && (hi == inf || hi >= s*(float64(qmax-q.zero)-0.45))) {
			continue
		}
		c, out := n.Inputs[0], n.Outputs[0]
		i := slices.Index(p.acts, c)
		if i < 0 {
			continue
		}
		prod.Outputs[0] = out
		skip[n] = true
		rw.folded++
		delete(p.actSet, c)
		if p.actSet[out] {
			p.acts = slices.Delete(p.acts, i, i+1)
		} else {
			p.acts[i] = out
			p.actSet[out] = true
		}
	}
	// A tensor read only by a MaxPool, Resize or reshape shares that op's
	// quantization; it is chosen from the op's output, the values that
	// go on (a max pool keeps the tail a clipping calibration cuts).
	readers := map[string]int{}
	for _, n := range g.Nodes {
		if !skip[n] {
			for _, in := range n.Inputs {
				readers[in]++
			}
		}
	}
	for _, n := range g.Nodes {
		r := p.roles[n]
		// Only ops whose outputs lie within their inputs' range: a folded
		// Relu or Clip stays exact under the output's quantization.
		if rz, ok := n.Op.(*canon.Resize); ok && rz.Mode == canon.ResizeCubic {
			continue
		}
		if (r == roleShared || r == roleMove) && readers[n.Inputs[0]] == 1 && !isOutput(g, n.Inputs[0]) {
			rw.rangeFrom[n.Inputs[0]] = n.Outputs[0]
		}
	}
	for _, t := range p.acts {
		if q, ok := paramsOf(t); ok {
			rw.params[t] = q
		}
	}
	// Graph inputs: their quantized consumers read a dequantized copy.
	inputDQ := map[string]string{}
	for _, in := range g.Inputs {
		if _, ok := rw.params[in.Name]; ok {
			d := rw.qdq(in.Name, in.Name, rw.names.Fresh(in.Name+"_dequantized"))
			inputDQ[in.Name] = d
			rw.inputOf[d] = in.Name
		}
	}
	for _, n := range g.Nodes {
		if skip[n] {
			continue
		}
		r := p.roles[n]
		if r != roleNone {
			for i, in := range n.Inputs {
				if d, ok := inputDQ[in]; ok {
					n.Inputs[i] = d
				}
			}
			if err := rw.quantizeConstInputs(n, r); err != nil {
				return nil, err
			}
		} else {
			rw.keepFloat(n, inputDQ)
		}
		// Each quantized output: the node writes a float value, which a
		// QuantizeLinear/DequantizeLinear pair turns into the value of the
		// original name, so every consumer (and check --layers) sees the
		// quantized tensor under its own name.
		var after []*canon.Node
		for k, o := range n.Outputs {
			if _, ok := rw.params[o]; !ok || o == "" {
				continue
			}
			f := rw.names.Fresh(o + "_float")
			n.Outputs[k] = f
			saved := rw.nodes
			rw.nodes = nil
			rw.qdq(o, f, o)
			after = append(after, rw.nodes...)
			rw.nodes = saved
		}
		rw.nodes = append(rw.nodes, n)
		rw.nodes = append(rw.nodes, after...)
	}
	g.Nodes = rw.nodes
	g.Initializers = append(g.Initializers, rw.inits...)
	removeDead(g)
	return rw, nil
}

// qdq emits QuantizeLinear(src) and DequantizeLinear into dst with the
// quantization of tensor t, and returns dst.
func (rw *rewriter) qdq(t, src, dst string) string {
	q := rw.params[t]
	scale := rw.names.Fresh(t + "_scale")
	zero := rw.names.Fresh(t + "_zero_point")
	rw.inits = append(rw.inits, canon.NewFloat32Tensor(scale, []int64{}, []float32{q.scale}), intTensor(zero, q.dtype, []int64{}, []int64{q.zero}))
	quant := rw.names.Fresh(t + "_quantized")
	rw.quantized[t] = quant
	rw.nodes = append(rw.nodes,
		&canon.Node{Name: rw.names.Fresh(t + "_QuantizeLinear"), Op: &canon.QuantizeLinear{Axis: 1, Saturate: true}, Inputs: []string{src, scale, zero}, Outputs: []string{quant}},
		&canon.Node{Name: rw.names.Fresh(t + "_DequantizeLinear"), Op: &canon.DequantizeLinear{Axis: 1}, Inputs: []string{quant, scale, zero}, Outputs: []string{dst}})
	return dst
}

// keepFloat gives a float Conv, ConvTranspose or Gemm that reads a
// quantized tensor its own DequantizeLinear with the scale and zero point
// repeated per channel: the same values, but ONNX Runtime quantizes the
// weights of such an op behind a per-tensor DequantizeLinear on its own
// (per tensor, with numbers the QDQ graph does not say), which would undo
// leaving it float.
func (rw *rewriter) keepFloat(n *canon.Node, inputDQ map[string]string) {
	switch n.Op.(type) {
	case *canon.Conv, *canon.ConvTranspose, *canon.Linear:
	default:
		return
	}
	t := n.Inputs[0]
	if _, isInput := inputDQ[t]; isInput {
		return // it reads the float input itself
	}
	q, ok := rw.params[t]
	quant := rw.quantized[t]
	if !ok || quant == "" {
		return
	}
	shape, ok := rw.g.Values.Get(t).StaticShape()
	if !ok || len(shape) < 2 {
		return
	}
	c := shape[1]
	scales := make([]float32, c)
	zeros := make([]int64, c)
	for i := range scales {
		scales[i], zeros[i] = q.scale, q.zero
	}
	scale := canon.NewFloat32Tensor(rw.names.Fresh(t+"_scale_per_channel"), []int64{c}, scales)
	zero := intTensor(rw.names.Fresh(t+"_zero_point_per_channel"), q.dtype, []int64{c}, zeros)
	rw.inits = append(rw.inits, scale, zero)
	out := rw.names.Fresh(t + "_dequantized_for_float")
	rw.nodes = append(rw.nodes, &canon.Node{Name: rw.names.Fresh(t + "_DequantizeLinear_for_float"), Op: &canon.DequantizeLinear{Axis: 1},
		Inputs: []string{quant, scale.Name, zero.Name}, Outputs: []string{out}})
	n.Inputs[0] = out
}

// dequantized adds an integer initializer and the DequantizeLinear that
// reads it, and returns the dequantized value's name.
func (rw *rewriter) dequantized(base string, q *canon.Tensor, scales []float32, zeroType canon.DType, axis int64) string {
	q.Name = rw.names.Fresh(base + "_quantized")
	scaleShape, zeroShape := []int64{int64(len(scales))}, []int64{int64(len(scales))}
	if len(scales) == 1 && axis < 0 {
		scaleShape, zeroShape = []int64{}, []int64{}
		axis = 1
	}
	scale := canon.NewFloat32Tensor(rw.names.Fresh(base+"_scale"), scaleShape, scales)
	zero := intTensor(rw.names.Fresh(base+"_zero_point"), zeroType, zeroShape, make([]int64, len(scales)))
	rw.inits = append(rw.inits, q, scale, zero)
	out := rw.names.Fresh(base + "_dequantized")
	rw.nodes = append(rw.nodes, &canon.Node{Name: rw.names.Fresh(base + "_DequantizeLinear"), Op: &canon.DequantizeLinear{Axis: axis},
		Inputs: []string{q.Name, scale.Name, zero.Name}, Outputs: []string{out}})
	return out
}

// quantizeConstInputs replaces the weight, bias and constant operands of
// a quantized node by dequantized integer tensors.
func (rw *rewriter) quantizeConstInputs(n *canon.Node, r role) error {
	g := rw.g
	switch r {
	case roleWeighted:
		wName := n.Inputs[1]
		_, isMatMul := n.Op.(*canon.MatMul)
		key := wName
		if isMatMul {
			key += "/columns" // the same tensor read as (K, N) has other channels
		}
		wq, ok := rw.weightDQ[key]
		if !ok {
			w := constOf(g, wName)
			vals, err := float32s(w)
			if err != nil {
				return fmt.Errorf("node %q: weight: %w", n.Name, err)
			}
			axis := 0
			if isMatMul {
				axis = 1 // B is (K, N): one scale per output column
			}
			q, scales := perChannel(vals, w.Shape, axis)
			wq = weightQ{scales: scales}
			wq.value = rw.dequantized(wName, intTensor("", canon.Int8, slices.Clone(w.Shape), q), scales, canon.Int8, int64(axis))
			rw.weightDQ[key] = wq
		}
		n.Inputs[1] = wq.value
		if len(n.Inputs) > 2 && n.Inputs[2] != "" {
			x := originalInput(n, rw)
			xq, ok := rw.params[x]
			if !ok {
				return fmt.Errorf("node %q: input %q has no calibrated range", n.Name, x)
			}
			b := constOf(g, n.Inputs[2])
			bv, err := float32s(b)
			if err != nil {
				return fmt.Errorf("node %q: bias: %w", n.Name, err)
			}
			if len(bv) != len(wq.scales) {
				return fmt.Errorf("node %q: bias %q has %d values for %d output channels", n.Name, b.Name, len(bv), len(wq.scales))
			}
			// int32 bias with scale x_scale·w_scale, as the integer kernels
			// add it to the int32 accumulator.
			scales := make([]float32, len(bv))
			q := make([]int64, len(bv))
			for c, v := range bv {
				scales[c] = xq.scale * wq.scales[c]
				q[c] = quantizeValue(float64(v), scales[c], 0, math.MinInt32, math.MaxInt32)
			}
			n.Inputs[2] = rw.dequantized(n.Inputs[2], intTensor("", canon.Int32, []int64{int64(len(q))}, q), scales, canon.Int32, 0)
		}
	case roleOwnRange:
		if _, ok := n.Op.(*canon.Binary); !ok {
			return nil
		}
		for i, in := range n.Inputs {
			c := constOf(g, in)
			if c == nil {
				continue
			}
			vals, err := float32s(c)
			if err != nil {
				return fmt.Errorf("node %q: operand: %w", n.Name, err)
			}
			r := Range{Min: float32(math.Inf(1)), Max: float32(math.Inf(-1))}
			for _, v := range vals {
				r.Min, r.Max = min(r.Min, v), max(r.Max, v)
			}
			qp := activationParams(r, rw.actType)
			lo, hi := canon.QuantRange(qp.dtype)
			if qp.dtype == canon.Int8 {
				lo = -127
			}
			q := make([]int64, len(vals))
			for k, v := range vals {
				q[k] = quantizeValue(float64(v), qp.scale, qp.zero, lo, hi)
			}
			qt := intTensor("", qp.dtype, slices.Clone(c.Shape), q)
			base := in
			if base == "" {
				base = n.Name + "_operand"
			}
			q0 := rw.dequantizedZero(base, qt, qp)
			n.Inputs[i] = q0
		}
	}
	return nil
}

// dequantizedZero is dequantized for a per-tensor quantization with a
// nonzero zero point.
func (rw *rewriter) dequantizedZero(base string, q *canon.Tensor, p qparams) string {
	q.Name = rw.names.Fresh(base + "_quantized")
	scale := canon.NewFloat32Tensor(rw.names.Fresh(base+"_scale"), []int64{}, []float32{p.scale})
	zero := intTensor(rw.names.Fresh(base+"_zero_point"), p.dtype, []int64{}, []int64{p.zero})
	rw.inits = append(rw.inits, q, scale, zero)
	out := rw.names.Fresh(base + "_dequantized")
	rw.nodes = append(rw.nodes, &canon.Node{Name: rw.names.Fresh(base + "_DequantizeLinear"), Op: &canon.DequantizeLinear{Axis: 1},
		Inputs: []string{q.Name, scale.Name, zero.Name}, Outputs: []string{out}})
	return out
}

// originalInput is the activation a weighted node reads, under the name
// its quantization is recorded by (a graph input's dequantized copy is
// recorded under the input's name).
func originalInput(n *canon.Node, rw *rewriter) string {
	if in, ok := rw.inputOf[n.Inputs[0]]; ok {
		return in
	}
	return n.Inputs[0]
}

// removeDead drops nodes whose outputs nobody reads and initializers no
// node reads (the float weights the quantized ones replaced).
func removeDead(g *canon.Graph) {
	used := map[string]bool{}
	for _, o := range g.Outputs {
		used[o.Name] = true
	}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		live := false
		for _, o := range n.Outputs {
			live = live || (o != "" && used[o])
		}
		if !live {
			g.Nodes = slices.Delete(g.Nodes, i, i+1)
			continue
		}
		for _, in := range n.Inputs {
			used[in] = true
		}
	}
	for _, in := range g.Inputs {
		used[in.Name] = true
	}
	g.Initializers = slices.DeleteFunc(g.Initializers, func(t *canon.Tensor) bool { return !used[t.Name] })
}
