package torchexport

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Two names of one tensor become one Parameter that model.py registers
// under both names; the state dict lists both keys over the same data (one
// storage in weights.pt).
func TestTiedParameters(t *testing.T) {
	w := canon.NewFloat32Tensor("embed.weight", []int64{10, 4}, make([]float32, 40))
	head := *w
	head.Name = "lm_head.weight"
	head.Layout = "OI"
	g := &canon.Graph{
		Inputs:       []canon.ValueInfo{{Name: "tokens", DType: canon.Int64, Shape: canon.DimsOf(3), RankKnown: true}},
		Initializers: []*canon.Tensor{w, &head},
		Nodes: []*canon.Node{
			{Name: "embed", Op: &canon.Gather{Axis: 0}, Inputs: []string{"embed.weight", "tokens"}, Outputs: []string{"h"}},
			{Name: "lm_head", Op: &canon.Linear{Alpha: 1, Beta: 1}, Inputs: []string{"h", "lm_head.weight"}, Outputs: []string{"logits"}},
		},
		Outputs: []canon.ValueInfo{{Name: "logits"}},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	mod, err := Generate(g)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mod.Source, `_put(self, "lm_head.weight", self.embed.weight)`) {
		t.Fatalf("model.py does not tie lm_head.weight to embed.weight:\n%s", mod.Source)
	}
	var keys []string
	for _, e := range mod.Entries {
		keys = append(keys, e.Key)
		if !canon.SameData(e.Tensor, w) {
			t.Errorf("entry %s does not hold the shared tensor", e.Key)
		}
	}
	if strings.Join(keys, ",") != "embed.weight,lm_head.weight" {
		t.Fatalf("state dict keys %v, want embed.weight and lm_head.weight", keys)
	}
	storages, _, err := planStorages(mod.Entries)
	if err != nil || len(storages) != 1 {
		t.Fatalf("%d storages (%v), want one for both keys", len(storages), err)
	}
}
