package pipeline

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func TestBindWeightsReport(t *testing.T) {
	g := &canon.Graph{Initializers: []*canon.Tensor{
		canon.NewFloat32Tensor("a", []int64{2}, []float32{1, 2}),
		canon.NewFloat32Tensor("b", []int64{1}, []float32{3}),
	}}
	w := &canon.Graph{Initializers: []*canon.Tensor{
		canon.NewFloat32Tensor("a", []int64{2}, []float32{5, 6}),
		canon.NewFloat32Tensor("b", []int64{2}, []float32{3, 4}),
		canon.NewFloat32Tensor("c", []int64{1}, []float32{0}),
	}}
	rep, err := BindWeights(g, w, false)
	if err == nil || len(rep.Mismatched) != 1 || len(rep.Extra) != 1 || len(rep.Replaced) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	if v, _ := g.Initializers[0].Float64s(); v[0] != 1 {
		t.Fatal("model changed although binding failed")
	}
	if _, err := BindWeights(g, w, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := g.Initializers[0].Float64s(); v[0] != 5 {
		t.Fatal("a not replaced")
	}
}
