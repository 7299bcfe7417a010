package onnximport_test

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/interp"
)

// TestFusionsReadTheirDecompose checks the importer's fusions against the
// fused op's Decompose: canon's expansion of the op, written to ONNX as
// plain nodes below the op's opset, is read back as the one op, and that
// op computes what the expansion computes on random inputs.
func TestFusionsReadTheirDecompose(t *testing.T) {
	cases := []struct {
		name  string
		op    canon.Op
		opset int
	}{
		{"exact Gelu", &canon.Gelu{Approximate: canon.GeluExact}, 17},
		{"upper Trilu", &canon.Trilu{Upper: true, K: 1}, 13},
		{"lower Trilu", &canon.Trilu{K: -1}, 13},
	}
	r := rand.New(rand.NewSource(33))
	for _, c := range cases {
		kind := c.op.Kind()
		g := &canon.Graph{
			Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3, 4), RankKnown: true}},
			Nodes:   []*canon.Node{{Name: "n", Op: c.op, Inputs: []string{"x"}, Outputs: []string{"y"}}},
			Outputs: []canon.ValueInfo{{Name: "y"}},
		}
		expanded, count, err := canon.Decompose(g, func(n *canon.Node, _ func(string) canon.ValueInfo) bool { return n.Op.Kind() != kind })
		if err != nil || count != 1 {
			t.Fatalf("%s: decompose: %d expanded, %v", c.name, count, err)
		}
		path := filepath.Join(t.TempDir(), "expanded.onnx")
		if err := onnxexport.Write(expanded, path, formats.WriteOptions{Opset: c.opset}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fused, err := onnximport.Read(path, formats.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(fused.Nodes) != 1 || fused.Nodes[0].Op.Kind() != kind {
			var kinds []string
			for _, n := range fused.Nodes {
				kinds = append(kinds, n.Op.Kind())
			}
			t.Fatalf("%s: canon's expansion read back as %v, want one %s", c.name, kinds, kind)
		}
		x := make([]float32, 24)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 3)
		}
		in := map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{2, 3, 4}, x)}
		want, err := interp.Run(expanded, in)
		if err != nil {
			t.Fatalf("%s: expansion: %v", c.name, err)
		}
		got, err := interp.Run(fused, in)
		if err != nil {
			t.Fatalf("%s: fused: %v", c.name, err)
		}
		a, _ := got["y"].Float64s()
		b, _ := want["y"].Float64s()
		for i := range b {
			if math.Abs(a[i]-b[i]) > 1e-6+1e-6*math.Abs(b[i]) {
				t.Errorf("%s: y[%d] = %v fused, %v expanded", c.name, i, a[i], b[i])
				break
			}
		}
	}
}
