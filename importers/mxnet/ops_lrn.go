package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&converters, map[string]mxOp{
		"LRN": {convLRN, []string{"LRN"}},
	})
}

// convLRN: MXNet's LRN divides alpha by nsize, as ONNX does, and centres
// its window on the channel: the same as ONNX for odd sizes. An even
// nsize spans nsize+1 channels in MXNet (c - n/2 .. c + n/2), which ONNX's
// window cannot say.
func convLRN(b *builder, c *nodeCtx) ([]string, error) {
	n, err := c.a.int("nsize", -1)
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, c.errf("LRN needs a positive nsize")
	}
	if n%2 == 0 {
		return nil, c.errf("nsize %d is even: MXNet's window then spans %d channels, which the canonical LRN cannot express", n, n+1)
	}
	alpha, err := c.a.float("alpha", 1e-4)
	if err != nil {
		return nil, err
	}
	beta, err := c.a.float("beta", 0.75)
	if err != nil {
		return nil, err
	}
	k, err := c.a.float("knorm", 2)
	if err != nil {
		return nil, err
	}
	return single(b, c, &canon.LRN{Size: n, Alpha: float32(alpha), Beta: float32(beta), Bias: float32(k)})
}
