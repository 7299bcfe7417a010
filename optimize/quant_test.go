package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// A QDQ graph (quantize the input, dequantize it and int8 weights, conv,
// requantize) keeps its values through every pass: the integer weights
// and the rounding steps are never folded into float arithmetic.
func TestPipelineKeepsQDQGraph(t *testing.T) {
	b := newGB(5)
	x := b.input("x", 1, 3, 6, 6)
	scalar := func(name string, dt canon.DType, v int64) string {
		var tt *canon.Tensor
		if dt == canon.Float32 {
			tt = canon.NewFloat32Tensor(name, []int64{}, []float32{float32(v) / 64})
		} else {
			tt = &canon.Tensor{Name: name, DType: dt, Shape: []int64{}, Data: []byte{byte(v)}}
		}
		b.g.Initializers = append(b.g.Initializers, tt)
		return name
	}
	q := b.node(&canon.QuantizeLinear{Axis: 1, Saturate: true}, x, scalar("xs", canon.Float32, 3), scalar("xz", canon.Uint8, 128))
	dq := b.node(&canon.DequantizeLinear{Axis: 1}, q, "xs", "xz")
	wq := make([]byte, 4*3*3*3)
	for i := range wq {
		wq[i] = byte(int8(i*37%255 - 127))
	}
	b.g.Initializers = append(b.g.Initializers,
		&canon.Tensor{Name: "wq", DType: canon.Int8, Shape: []int64{4, 3, 3, 3}, Data: wq},
		canon.NewFloat32Tensor("ws", []int64{4}, []float32{0.01, 0.02, 0.005, 0.03}))
	w := b.node(&canon.DequantizeLinear{Axis: 0}, "wq", "ws")
	y := b.node(&canon.Conv{Strides: spatial(1, 2), Dilations: spatial(1, 2), PadsBegin: spatial(1, 2), PadsEnd: spatial(1, 2), Group: 1}, dq, w)
	y = b.bn(y, 4, 1e-5)
	yq := b.node(&canon.QuantizeLinear{Axis: 1, Saturate: true}, y, scalar("ys", canon.Float32, 5), scalar("yz", canon.Uint8, 100))
	out := b.node(&canon.DequantizeLinear{Axis: 1}, yq, "ys", "yz")
	opt := runPassList(t, b.output(out), Passes())
	wantOps(t, opt, map[string]int{"QuantizeLinear": 2, "DequantizeLinear": 3})
}
