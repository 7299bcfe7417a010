package interp

import (
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestAttentionExpansionCoversTheCache: Attention with a key/value cache,
// its present outputs and a causal mask offset by the past length, on 4-D
// inputs and on grouped 3-D ones.
func TestAttentionExpansionCoversTheCache(t *testing.T) {
	r := rand.New(rand.NewSource(34))
	f32 := func(name string, dims ...int64) canon.ValueInfo {
		return canon.ValueInfo{Name: name, DType: canon.Float32, Shape: canon.DimsOf(dims...), RankKnown: true}
	}
	cases := []struct {
		op     *canon.Attention
		inputs []canon.ValueInfo
	}{
		// (batch 2, heads 3, q seq 4, size 5), 2 new keys after 3 cached.
		{&canon.Attention{IsCausal: true}, []canon.ValueInfo{f32("q", 2, 3, 4, 5), f32("k", 2, 3, 2, 5), f32("v", 2, 3, 2, 6), {}, f32("pk", 2, 3, 3, 5), f32("pv", 2, 3, 3, 6)}},
		// 4 query heads over 2 key heads, 3-D, with a float mask over all 5 keys.
		{&canon.Attention{QNumHeads: 4, KVNumHeads: 2, Softcap: 3}, []canon.ValueInfo{f32("q", 2, 1, 8), f32("k", 2, 1, 4), f32("v", 2, 1, 6), f32("m", 1, 5), f32("pk", 2, 2, 4, 2), f32("pv", 2, 2, 4, 3)}},
		// Present outputs without a cache.
		{&canon.Attention{IsCausal: true}, []canon.ValueInfo{f32("q", 1, 2, 3, 4), f32("k", 1, 2, 3, 4), f32("v", 1, 2, 3, 4)}},
	}
	for i, c := range cases {
		g := &canon.Graph{}
		n := &canon.Node{Name: "att", Op: c.op, Outputs: []string{"y", "present_key", "present_value"}}
		for _, v := range c.inputs {
			n.Inputs = append(n.Inputs, v.Name)
			if v.Name != "" {
				g.Inputs = append(g.Inputs, v)
			}
		}
		for _, o := range n.Outputs {
			g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
		}
		g.Nodes = []*canon.Node{n}
		if err := g.Validate(); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		checkExpansion(t, "Attention", i, g, r)
	}
}
