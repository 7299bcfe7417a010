package interp

import (
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestNormExpansionsCoverStatsAndStash: the normalizations' expansions
// with their statistics outputs, a float64 stash type and inner axes.
func TestNormExpansionsCoverStatsAndStash(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	x := canon.ValueInfo{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 4, 3, 5), RankKnown: true}
	vec := func(name string, n int64) canon.ValueInfo {
		return canon.ValueInfo{Name: name, DType: canon.Float32, Shape: canon.DimsOf(n), RankKnown: true}
	}
	mat := canon.ValueInfo{Name: "s", DType: canon.Float32, Shape: canon.DimsOf(3, 5), RankKnown: true}
	cases := []struct {
		kind    string
		op      canon.Op
		inputs  []canon.ValueInfo
		outputs int
	}{
		{"LayerNormalization", &canon.LayerNorm{Axis: 2, Epsilon: 1e-3, Stash: canon.Float64}, []canon.ValueInfo{x, mat, {Name: "b", DType: canon.Float32, Shape: canon.DimsOf(3, 5), RankKnown: true}}, 3},
		{"LayerNormalization", &canon.LayerNorm{Axis: -1, Epsilon: 1e-5, Stash: canon.Float32}, []canon.ValueInfo{x, vec("s", 5)}, 3},
		{"RMSNormalization", &canon.RMSNorm{Axis: -2, Epsilon: 1e-4, Stash: canon.Float64}, []canon.ValueInfo{x, mat}, 1},
		{"GroupNormalization", &canon.GroupNorm{NumGroups: 4, Epsilon: 1e-5, Stash: canon.Float64}, []canon.ValueInfo{x, vec("s", 4), vec("b", 4)}, 1},
	}
	for i, c := range cases {
		g := &canon.Graph{Inputs: c.inputs}
		n := &canon.Node{Name: "norm", Op: c.op}
		for _, v := range c.inputs {
			n.Inputs = append(n.Inputs, v.Name)
		}
		for _, o := range []string{"y", "mean", "inv_std"}[:c.outputs] {
			n.Outputs = append(n.Outputs, o)
			g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
		}
		g.Nodes = []*canon.Node{n}
		if err := g.Validate(); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		checkExpansion(t, c.kind, i, g, r)
	}
}
