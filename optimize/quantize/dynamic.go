package quantize

import (
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/optimize"
)

// Dynamic quantizes the weights of the matrix products with a constant
// weight (Gemm-shaped Linear, MatMul) to int8 per output column, and their
// activations at run time, in the form ONNX Runtime fuses into one
// integer kernel (DynamicQuantizeMatMul):
//
//	x -> DynamicQuantizeLinear -> (xq, xs, xzp)
//	MatMulInteger(xq, Wq, xzp, wzp) -> Cast(float) -> Mul(xs·ws) [-> Add(bias)]
//
// Everything else, recurrent and attention ops included, stays float.
func Dynamic(g *canon.Graph, opts Options) (*canon.Graph, *Report, error) {
	q := optimize.Clone(g)
	if err := q.Infer(); err != nil {
		return nil, nil, err
	}
	rep := &Report{Mode: "dynamic", Quantized: map[string]int{}, KeptFloat: opts.KeepFloat}
	names := optimize.NewNamer(q)
	var nodes []*canon.Node
	var inits []*canon.Tensor
	// One DynamicQuantizeLinear per activation, shared by its readers.
	dql := map[string][3]string{}
	done := map[*canon.Node]bool{}
	for _, n := range q.Nodes {
		w, bias, ok := dynamicCandidate(n, q)
		if !ok || slices.Contains(opts.KeepFloat, Class(n, q)) {
			nodes = append(nodes, n)
			continue
		}
		done[n] = true
		rep.Quantized[Class(n, q)]++
		x := n.Inputs[0]
		qx, ok := dql[x]
		if !ok {
			qx = [3]string{names.Fresh(x + "_quantized"), names.Fresh(x + "_scale"), names.Fresh(x + "_zero_point")}
			nodes = append(nodes, &canon.Node{Name: names.Fresh(x + "_DynamicQuantizeLinear"), Op: &canon.DynamicQuantizeLinear{}, Inputs: []string{x}, Outputs: qx[:]})
			dql[x] = qx
		}
		vals, err := float32s(w)
		if err != nil {
			return nil, nil, fmt.Errorf("node %q: weight: %w", n.Name, err)
		}
		shape := w.Shape
		if _, isLinear := n.Op.(*canon.Linear); isLinear {
			// Linear's weight is (out, in); MatMulInteger reads (K, N).
			vals = transpose2(vals, shape)
			shape = []int64{shape[1], shape[0]}
		}
		wq, scales := perChannel(vals, shape, 1)
		base := n.Inputs[1]
		wt := intTensor(names.Fresh(base+"_quantized"), canon.Int8, slices.Clone(shape), wq)
		wzp := intTensor(names.Fresh(base+"_zero_point"), canon.Int8, []int64{shape[1]}, make([]int64, shape[1]))
		ws := canon.NewFloat32Tensor(names.Fresh(base+"_scale"), []int64{shape[1]}, scales)
		inits = append(inits, wt, wzp, ws)
		out := n.Outputs[0]
		acc := names.Fresh(out + "_int32")
		accF := names.Fresh(out + "_int32_float")
		scale := names.Fresh(out + "_scale")
		scaled := out
		if bias != "" {
			scaled = names.Fresh(out + "_unbiased")
		}
		nodes = append(nodes,
			&canon.Node{Name: names.Fresh(n.Name + "_MatMulInteger"), Op: &canon.MatMulInteger{}, Inputs: []string{qx[0], wt.Name, qx[2], wzp.Name}, Outputs: []string{acc}},
			&canon.Node{Name: names.Fresh(n.Name + "_Cast"), Op: &canon.Cast{To: canon.Float32}, Inputs: []string{acc}, Outputs: []string{accF}},
			&canon.Node{Name: names.Fresh(n.Name + "_scales"), Op: &canon.Binary{Fn: canon.Mul}, Inputs: []string{qx[1], ws.Name}, Outputs: []string{scale}},
			&canon.Node{Name: names.Fresh(n.Name + "_rescale"), Op: &canon.Binary{Fn: canon.Mul}, Inputs: []string{accF, scale}, Outputs: []string{scaled}})
		if bias != "" {
			nodes = append(nodes, &canon.Node{Name: names.Fresh(n.Name + "_bias"), Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{scaled, bias}, Outputs: []string{out}})
		}
	}
	if len(done) == 0 {
		return nil, nil, fmt.Errorf("nothing to quantize dynamically: no Gemm/Linear or MatMul with a constant 2-D float32 weight")
	}
	rep.Float = floatNotes(q, func(n *canon.Node) bool { return done[n] }, keptReason(q, opts.KeepFloat, dynamicFloatReason))
	q.Nodes = nodes
	q.Initializers = append(q.Initializers, inits...)
	removeDead(q)
	if err := finish(q); err != nil {
		return nil, nil, err
	}
	return q, rep, nil
}

// dynamicCandidate: a Linear (alpha 1, beta 1) or MatMul whose weight is
// a constant 2-D float32 tensor, with its bias when it has one.
func dynamicCandidate(n *canon.Node, g *canon.Graph) (*canon.Tensor, string, bool) {
	switch n.Op.(type) {
	case *canon.MatMul, *canon.Linear:
	default:
		return nil, "", false
	}
	if len(n.Outputs) != 1 || !isF32(g, n.Inputs[0]) || constOf(g, n.Inputs[0]) != nil {
		return nil, "", false
	}
	w := constOf(g, n.Inputs[1])
	if w == nil || w.DType != canon.Float32 || len(w.Shape) != 2 {
		return nil, "", false
	}
	switch op := n.Op.(type) {
	case *canon.MatMul:
		return w, "", true
	case *canon.Linear:
		if op.Alpha != 1 {
			return nil, "", false
		}
		if len(n.Inputs) > 2 && n.Inputs[2] != "" {
			if op.Beta != 1 {
				return nil, "", false
			}
			return w, n.Inputs[2], true
		}
		return w, "", true
	}
	return nil, "", false
}

func transpose2(v []float32, shape []int64) []float32 {
	r, c := int(shape[0]), int(shape[1])
	out := make([]float32, len(v))
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out[j*r+i] = v[i*c+j]
		}
	}
	return out
}
