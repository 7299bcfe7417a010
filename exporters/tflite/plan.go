package tfliteexport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// plan folds batch norms into the convolution before them and fuses
// activations into the op before them, as TFLite's own converter does.
func (e *exporter) plan() {
	producer := map[string]*canon.Node{}
	for _, n := range e.g.Nodes {
		for _, o := range n.Outputs {
			producer[o] = n
		}
	}
	// soleUse reports whether value v is read only by n and is not a graph
	// output, so the node producing it may take n's place.
	soleUse := func(v string, n *canon.Node) bool {
		c := e.consumers[v]
		return !e.isOutput[v] && len(c) == 1 && c[0] == n
	}
	for _, n := range e.g.Nodes {
		bn, ok := n.Op.(*canon.BatchNorm)
		if !ok || len(n.Inputs) < 5 {
			continue
		}
		conv := producer[n.Inputs[0]]
		if conv == nil || conv.Op.Kind() != "Conv" || !soleUse(n.Inputs[0], n) || e.constOf(conv.Inputs[1]) == nil ||
			e.constOf(conv.Inputs[1]).DType != canon.Float32 {
			continue
		}
		if _, err := bnAffine(e, n, bn); err != nil {
			continue
		}
		e.bnOf[conv] = n
		e.skip[n] = true
		e.finalOut[conv] = n.Outputs[0]
		producer[n.Outputs[0]] = conv
		e.report.foldedBN++
	}
	for _, n := range e.g.Nodes {
		act, ok := e.fusable(n)
		if !ok {
			continue
		}
		p := producer[n.Inputs[0]]
		if p == nil || e.skip[p] || !soleUse(n.Inputs[0], n) || !takesFusedAct[p.Op.Kind()] {
			continue
		}
		if _, done := e.fusedAct[p]; done {
			continue
		}
		e.fusedAct[p] = act
		e.finalOut[p] = n.Outputs[0]
		e.skip[n] = true
		e.report.fusedActs++
	}
}

// takesFusedAct lists the kinds whose TFLite op carries a fused activation.
var takesFusedAct = map[string]bool{"Conv": true, "Linear": true, "Add": true, "Sub": true, "Mul": true, "Div": true}

// fusable returns the fused activation n is, if it is one.
func (e *exporter) fusable(n *canon.Node) (tflitefb.ActivationFunctionType, bool) {
	if len(n.Inputs) == 0 || e.dtype(n.Inputs[0]) != canon.Float32 {
		return 0, false
	}
	switch op := n.Op.(type) {
	case *canon.Unary:
		if op.Fn == canon.Relu {
			return tflitefb.ActivationFunctionTypeRELU, true
		}
	case *canon.Clip:
		lo, hi, ok := e.clipBounds(n, op)
		if !ok {
			return 0, false
		}
		switch {
		case lo == 0 && hi == 6:
			return tflitefb.ActivationFunctionTypeRELU6, true
		case lo == 0 && math.IsInf(float64(hi), 1):
			return tflitefb.ActivationFunctionTypeRELU, true
		case lo == -1 && hi == 1:
			return tflitefb.ActivationFunctionTypeRELU_N1_TO_1, true
		}
	}
	return 0, false
}

// clipBounds returns Clip's bounds, from its attributes or constant inputs.
func (e *exporter) clipBounds(n *canon.Node, op *canon.Clip) (lo, hi float32, ok bool) {
	lo, hi = op.Min, op.Max
	for slot, dst := range map[int]*float32{1: &lo, 2: &hi} {
		if slot < len(n.Inputs) && n.Inputs[slot] != "" {
			c := e.constOf(n.Inputs[slot])
			if c == nil || c.NumElements() != 1 {
				return 0, 0, false
			}
			v, err := c.Float64s()
			if err != nil {
				return 0, 0, false
			}
			*dst = float32(v[0])
		}
	}
	return lo, hi, true
}

// bnAffine returns batch norm n as per-channel y = a·x + b.
func bnAffine(e *exporter, n *canon.Node, bn *canon.BatchNorm) ([2][]float32, error) {
	var p [4][]float32
	for i := range p {
		c := e.constOf(n.Inputs[1+i])
		if c == nil {
			return [2][]float32{}, nodeErr(n, "its %s is computed at run time; TFLite export folds only constant batch norm parameters", []string{"scale", "bias", "mean", "variance"}[i])
		}
		v, err := floats(c)
		if err != nil {
			return [2][]float32{}, nodeErr(n, "%v", err)
		}
		p[i] = v
	}
	ch := len(p[0])
	for i := range p {
		if len(p[i]) != ch {
			return [2][]float32{}, nodeErr(n, "its parameters have different lengths")
		}
	}
	a, b := make([]float32, ch), make([]float32, ch)
	for c := 0; c < ch; c++ {
		a[c] = float32(float64(p[0][c]) / math.Sqrt(float64(p[3][c])+float64(bn.Epsilon)))
		b[c] = float32(float64(p[1][c]) - float64(p[2][c])*float64(a[c]))
	}
	return [2][]float32{a, b}, nil
}

// nonNegative reports whether value v is known to be >= 0 (or NaN): the
// output of a ReLU-like activation, fused or not, or of ops that only move
// or pick such values (Concat, MaxPool, reshapes).
func (e *exporter) nonNegative(v string) bool {
	return e.nonNegativeDepth(v, 16)
}

func (e *exporter) nonNegativeDepth(v string, depth int) bool {
	if depth == 0 {
		return false
	}
	for _, n := range e.g.Nodes {
		if e.outName(n) == v {
			if act, ok := e.fusedAct[n]; ok {
				return act == tflitefb.ActivationFunctionTypeRELU || act == tflitefb.ActivationFunctionTypeRELU6
			}
		}
		if len(n.Outputs) == 0 || n.Outputs[0] != v {
			continue
		}
		switch op := n.Op.(type) {
		case *canon.Unary:
			return op.Fn == canon.Relu || op.Fn == canon.Sigmoid
		case *canon.Clip:
			lo, _, ok := e.clipBounds(n, op)
			return ok && lo >= 0
		case *canon.Concat:
			for _, in := range n.Inputs {
				if !e.nonNegativeDepth(in, depth-1) {
					return false
				}
			}
			return true
		case *canon.MaxPool, *canon.Reshape, *canon.Flatten, *canon.Identity, *canon.Dropout:
			return e.nonNegativeDepth(n.Inputs[0], depth-1)
		}
		return false
	}
	return false
}
