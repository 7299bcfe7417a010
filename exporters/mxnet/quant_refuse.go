package mxnetexport

import "github.com/modelbridge/modelbridge/canon"

// firstQuantizedLack is the first integer convolution or matrix product
// (ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul) of g, which
// MXNet cannot express: a quantized model is refused by that op's name
// and reason rather than by whichever float step of its requantization
// comes first.
func firstQuantizedLack(g *canon.Graph) *canon.Node {
	for _, n := range g.Nodes {
		switch n.Op.(type) {
		case *canon.ConvInteger, *canon.MatMulInteger, *canon.QLinearConv, *canon.QLinearMatMul:
			return n
		}
	}
	return nil
}
