package mxnetexport_test

import (
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// TestResampleRoundTrip writes the resampling forms MXNet has (nearest
// UpSampling, BilinearResize2D in both coordinate maps, of every axis or
// of some, BilinearSampler, GridGenerator, col2im), reads them back and compares
// the interpreter's results.
func TestResampleRoundTrip(t *testing.T) {
	g := &canon.Graph{Name: "resample", Inputs: []canon.ValueInfo{
		{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 2, 5, 7), RankKnown: true},
		{Name: "grid", DType: canon.Float32, Shape: canon.DimsOf(1, 3, 4, 2), RankKnown: true},
		{Name: "theta", DType: canon.Float32, Shape: canon.DimsOf(2, 2, 3), RankKnown: true},
		{Name: "cols", DType: canon.Float32, Shape: canon.DimsOf(2, 18, 12), RankKnown: true},
	}}
	ops := []struct {
		op canon.Op
		in []string
	}{
		{&canon.Resize{Axes: []int64{2, 3}, Scales: []float32{2, 2}, CoordTransform: canon.Asymmetric, Nearest: canon.Floor}, []string{"x"}},
		{&canon.Resize{Mode: canon.ResizeLinear, CoordTransform: canon.HalfPixel, Sizes: []int64{1, 2, 9, 4}}, []string{"x"}},
		{&canon.Resize{Mode: canon.ResizeLinear, CoordTransform: canon.AlignCorners, Axes: []int64{3}, Sizes: []int64{11}}, []string{"x"}},
		{&canon.Resize{Mode: canon.ResizeLinear, CoordTransform: canon.PytorchHalfPixel, Sizes: []int64{1, 2, 1, 3}}, []string{"x"}},
		{&canon.GridSample{Mode: canon.ResizeLinear, Padding: canon.GridZeros, AlignCorners: true}, []string{"x", "grid"}},
		{&canon.AffineGrid{Size: []int64{2, 1, 3, 4}, AlignCorners: true}, []string{"theta"}},
		{&canon.Col2Im{ImageShape: []int64{5, 6}, BlockShape: []int64{2, 3}, Strides: []int64{2, 1}, Dilations: []int64{1, 2},
			PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}}, []string{"cols"}},
	}
	for i, o := range ops {
		out := "y" + strconv.Itoa(i)
		g.Nodes = append(g.Nodes, &canon.Node{Name: "n" + strconv.Itoa(i), Op: o.op, Inputs: o.in, Outputs: []string{out}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: out})
	}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	for i := range g.Outputs {
		v := g.Values.Get(g.Outputs[i].Name)
		v.Const = nil
		g.Outputs[i] = v
	}
	in := exampleInputs(t, g)
	want, err := interp.Run(g, in)
	if err != nil {
		t.Fatal(err)
	}
	g2 := roundTrip(t, g)
	defer g2.Close()
	got, err := interp.Run(g2, in)
	if err != nil {
		t.Fatal(err)
	}
	sameOutputs(t, want, got, g, g2, 1e-5)
}
