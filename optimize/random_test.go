package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestDrawsNeverFolded: a draw whose inputs are constants (RandomUniform has
// none) is not folded into an initializer, and Verify compares the outputs
// it feeds by shape, dtype and range.
func TestDrawsNeverFolded(t *testing.T) {
	g := &canon.Graph{Name: "draws"}
	g.Inputs = []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3), RankKnown: true}}
	g.Nodes = []*canon.Node{
		{Name: "u", Op: &canon.RandomUniform{High: 1, DType: canon.Float32, Shape: []int64{2, 3}}, Outputs: []string{"u"}},
		{Name: "add", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"x", "u"}, Outputs: []string{"y"}},
	}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	opt := Clone(g)
	if _, err := foldConstants(opt); err != nil {
		t.Fatal(err)
	}
	if len(opt.Nodes) != 2 || len(opt.Initializers) != 0 {
		t.Fatalf("the draw was folded: %d nodes, %d initializers", len(opt.Nodes), len(opt.Initializers))
	}
	opt.Nodes[0].Name = "u_renamed" // another stream: the values differ
	if err := Verify(g, opt, 1, 2, 1e-5, 1e-6); err != nil {
		t.Errorf("Verify compares drawn outputs by value: %v", err)
	}
}
