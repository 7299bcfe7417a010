package torchscript

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTracedRandom: traced draws (out of place and in place) import as
// canon's sampling kinds and run, their outputs marked as drawn; a draw of
// a distribution no sampling kind draws is refused by name, saying why.
func TestTracedRandom(t *testing.T) {
	dir, _ := trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return x + torch.randn_like(x) + torch.empty(2, 3).uniform_(-1, 1), torch.multinomial(x.abs() + 0.1, 3)  # without replacement: Gumbel top-k
xs = [torch.randn(2, 3)]
`)
	g, _, err := readTraced(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	kinds := map[string]bool{}
	for _, n := range g.Nodes {
		kinds[n.Op.Kind()] = true
	}
	for _, k := range []string{"RandomNormalLike", "RandomUniformLike", "TopK"} {
		if !kinds[k] {
			t.Errorf("no %s node: %v", k, kinds)
		}
	}
	if d := canon.DrawnOutputs(g); len(d) != 2 || !d[0] || !d[1] {
		t.Errorf("drawn outputs %v, want both", d)
	}
	feed := map[string]*canon.Tensor{g.Inputs[0].Name: canon.NewFloat32Tensor(g.Inputs[0].Name, []int64{2, 3}, []float32{1, -2, 3, 0.5, 0, -1})}
	out, err := interp.Run(g, feed)
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := out[g.Outputs[1].Name].Int64s()
	for r := range 2 { // without replacement: each row draws every class once
		seen := map[int64]bool{}
		for _, k := range idx[3*r : 3*r+3] {
			if k < 0 || k > 2 || seen[k] {
				t.Errorf("row %d draws %v, want a permutation of 0, 1, 2", r, idx[3*r:3*r+3])
			}
			seen[k] = true
		}
	}

	dir, _ = trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return torch._standard_gamma(x.abs() + 1)
xs = [torch.randn(2, 3)]
`)
	_, _, err = readTraced(t, dir)
	if err == nil || !strings.Contains(err.Error(), "torch._standard_gamma") || !strings.Contains(err.Error(), "gamma distribution") {
		t.Fatalf("want _standard_gamma refused by name, got %v", err)
	}
}
