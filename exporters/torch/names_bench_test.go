package torchexport

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// manyWeights is a weights-only graph of n one-element tensors named like
// a real state dict's keys (layers.i.weight), all colliding once
// sanitized when collide is set.
func manyWeights(n int, collide bool) *canon.Graph {
	g := &canon.Graph{Name: "w"}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("layers.%d.weight", i)
		if collide {
			name = fmt.Sprintf("w-%d", i%2) + strings.Repeat("-", i%7+1)
		}
		g.Initializers = append(g.Initializers, canon.NewFloat32Tensor(name, []int64{1}, []float32{1}))
	}
	return g
}

// Claiming names is linear in the number of names and their length.
func BenchmarkWeightEntries200k(b *testing.B) {
	g := manyWeights(200000, false)
	for b.Loop() {
		WeightEntries(g)
	}
}

func BenchmarkWeightEntriesColliding(b *testing.B) {
	g := manyWeights(50000, true)
	for b.Loop() {
		WeightEntries(g)
	}
}

func BenchmarkDeepName(b *testing.B) {
	g := &canon.Graph{Initializers: []*canon.Tensor{canon.NewFloat32Tensor(strings.Repeat("a.", 100000)+"w", []int64{1}, []float32{1})}}
	for b.Loop() {
		WeightEntries(g)
	}
}

// The benchmarks' cases as a test: every key is unique. (Their speed is
// the benchmarks' business: 200k tensors took over a minute when claiming
// scanned every path.)
func TestNameClaimingUnique(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	for _, c := range []struct {
		name string
		g    *canon.Graph
	}{
		{"200k-tensors", manyWeights(200000, false)},
		{"50k-colliding", manyWeights(50000, true)},
		{"100k-components", &canon.Graph{Initializers: []*canon.Tensor{canon.NewFloat32Tensor(strings.Repeat("a.", 100000)+"w", []int64{1}, []float32{1})}}},
	} {
		entries, _ := WeightEntries(c.g)
		seen := map[string]bool{}
		for _, e := range entries {
			if seen[e.Key] {
				t.Fatalf("%s: key %q given twice", c.name, e.Key)
			}
			seen[e.Key] = true
		}
	}
}
