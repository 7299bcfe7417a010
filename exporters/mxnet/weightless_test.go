package mxnetexport_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
)

// A model with no weights (a pooling net) is still a whole model: its
// params file is written, empty, and the pair reads back as a model, not
// as a symbol missing its weights. A weight shared under two names is one
// params array.
func TestWeightlessAndShared(t *testing.T) {
	dir := t.TempDir()
	x := canon.ValueInfo{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 4), RankKnown: true}
	g := &canon.Graph{Name: "plain", Inputs: []canon.ValueInfo{x},
		Nodes:   []*canon.Node{{Name: "relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"x"}, Outputs: []string{"y"}}},
		Outputs: []canon.ValueInfo{{Name: "y"}}}
	sym := filepath.Join(dir, "plain-symbol.json")
	if err := mxnetexport.Write(g, sym, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "plain-0000.params")); err != nil {
		t.Fatalf("no params file for a model without weights: %v", err)
	}
	back, err := mxnetimport.Read(sym, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Meta.WeightsMissing || len(back.Inputs) != 1 {
		t.Fatalf("read back with WeightsMissing %v and %d inputs, want a complete model with 1", back.Meta.WeightsMissing, len(back.Inputs))
	}

	w := canon.NewFloat32Tensor("a.weight", []int64{3, 4}, make([]float32, 12))
	w.Layout = "OI"
	tied := *w
	tied.Name = "b.weight"
	g2 := &canon.Graph{Name: "tied", Inputs: []canon.ValueInfo{x}, Initializers: []*canon.Tensor{w, &tied},
		Nodes: []*canon.Node{
			{Name: "a", Op: &canon.Linear{Alpha: 1, Beta: 1}, Inputs: []string{"x", "a.weight"}, Outputs: []string{"ya"}},
			{Name: "b", Op: &canon.Linear{Alpha: 1, Beta: 1}, Inputs: []string{"x", "b.weight"}, Outputs: []string{"yb"}},
		},
		Outputs: []canon.ValueInfo{{Name: "ya"}, {Name: "yb"}}}
	_, params, err := mxnetexport.Encode(g2)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "tied-0000.params")
	os.WriteFile(p, params, 0o644)
	pg, err := mxnetimport.ReadParams(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Initializers) != 1 {
		t.Fatalf("params file holds %d arrays, want the shared weight once", len(pg.Initializers))
	}
}
