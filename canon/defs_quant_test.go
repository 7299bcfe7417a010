package canon

import (
	"strings"
	"testing"
)

// The integer convolutions' weights carry the OIHW layout like Conv's, and
// a weight labelled otherwise is refused.
func TestIntegerConvWeightLayout(t *testing.T) {
	for _, kind := range []string{"QLinearConv", "ConvInteger"} {
		g, err := Lookup(kind).ExampleGraph()
		if err != nil {
			t.Fatal(err)
		}
		var w *Tensor
		for _, in := range g.Initializers {
			if len(in.Shape) == 4 {
				w = in
			}
		}
		if w == nil || w.Layout != "OIHW" {
			t.Fatalf("%s: weight %+v, want layout OIHW", kind, w)
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		w.Layout = "IOHW"
		err = g.Validate()
		if err == nil || !strings.Contains(err.Error(), "has layout IOHW, "+kind+" needs OIHW") {
			t.Errorf("%s with an IOHW weight: %v", kind, err)
		}
	}
}

// Scale shapes are checked against the quantization form.
func TestQuantScaleShapes(t *testing.T) {
	x := ValueInfo{DType: Float32, Shape: DimsOf(2, 6, 5), RankKnown: true}
	f32 := func(d ...int64) ValueInfo { return ValueInfo{DType: Float32, Shape: DimsOf(d...), RankKnown: true} }
	for _, tc := range []struct {
		op    Op
		scale ValueInfo
		want  string
	}{
		{&QuantizeLinear{Axis: 1}, f32(), "u8[2 6 5]"},
		{&QuantizeLinear{Axis: 1}, f32(6), "u8[2 6 5]"},
		{&QuantizeLinear{Axis: 1}, f32(5), "ERR has 5 values but axis 1"},
		{&QuantizeLinear{Axis: 1, BlockSize: 4}, f32(2, 2, 5), "u8[2 6 5]"},
		{&QuantizeLinear{Axis: 1, BlockSize: 4}, f32(2, 3, 5), "ERR with block size 4"},
		{&QuantizeLinear{Axis: 1, OutputDType: Int16}, f32(), "i16[2 6 5]"},
	} {
		n := &Node{Name: "q", Op: tc.op, Inputs: []string{"x", "s"}, Outputs: []string{"y"}}
		out, err := InferNode(n, []ValueInfo{x, tc.scale})
		got := ""
		if err != nil {
			got = "ERR " + err.Error()
		} else {
			got = out[0].DType.String() + fmtDims(out[0].Shape)
		}
		if !strings.HasPrefix(tc.want, "ERR") && got != tc.want || strings.HasPrefix(tc.want, "ERR") && !strings.Contains(got, strings.TrimPrefix(tc.want, "ERR ")) {
			t.Errorf("%T %+v with scale %s: got %s, want %s", tc.op, tc.op, fmtShape(tc.scale), got, tc.want)
		}
	}
}
