package torchexport

import "github.com/modelbridge/modelbridge/canon"

// quantizedKinds are the ops of a quantized graph.
var quantizedKinds = map[string]bool{
	"QuantizeLinear": true, "DequantizeLinear": true, "DynamicQuantizeLinear": true,
	"QLinearConv": true, "QLinearMatMul": true, "ConvInteger": true, "MatMulInteger": true,
}

// quantizedNote tells, in a quantized graph's docstring, how its quantized
// ops are written: not as fake quantization over dequantized float
// weights (a float convolution of dequantized values and torch's
// fake_quantize, which multiplies by 1/scale, round differently from the
// integer accumulation and requantization of the source), but as the
// integer arithmetic itself.
func quantizedNote(g *canon.Graph) string {
	for _, n := range g.Nodes {
		if quantizedKinds[n.Op.Kind()] {
			return " Quantized: the integer weights are kept as int8/uint8 buffers and the quantized ops are written as explicit integer arithmetic" +
				" (exact convolutions and matrix products, requantization in float32 with torch.round and torch.clamp), which computes the same integers as the source model;" +
				" neither fake quantization nor dequantized float weights are used, as both round differently."
		}
	}
	return ""
}
