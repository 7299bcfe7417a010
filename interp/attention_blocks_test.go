package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// attnCase is one Attention node with its inputs, in input-slot order.
type attnCase struct {
	name   string
	op     *canon.Attention
	inputs []*canon.Tensor
	outs   []string
	tol    float64 // on y; 1e-6 when 0
}

func boolTensor(r *rand.Rand, name string, pTrue float64, shape ...int64) *canon.Tensor {
	b := make([]byte, canon.NumElements(shape))
	for i := range b {
		if r.Float64() < pTrue {
			b[i] = 1
		}
	}
	return &canon.Tensor{Name: name, DType: canon.Bool, Shape: shape, Data: b}
}

func attnBlockCases(r *rand.Rand) []attnCase {
	f := func(name string, scale float32, shape ...int) *canon.Tensor {
		t := randTensor(r, name, shape...)
		v, _ := t.Float64s()
		s := make([]float32, len(v))
		for i := range v {
			s[i] = float32(v[i]) * scale
		}
		return canon.NewFloat32Tensor(name, t.Shape, s)
	}
	y := []string{"y"}
	// A row with no key to attend to: the float64 path's softmax gives NaN.
	deadRow := boolTensor(r, "m", 0.7, 1, 1, 9, 12)
	for j := range 12 {
		deadRow.Data[3*12+j] = 0
	}
	return []attnCase{
		// Ragged: 70 queries and keys, heads of 24 and 20.
		{"4-D", &canon.Attention{}, []*canon.Tensor{f("q", 2, 2, 3, 70, 24), f("k", 2, 2, 3, 70, 24), f("v", 1, 2, 3, 70, 20)}, y, 0},
		{"4-D scale causal", &canon.Attention{Scale: 0.3, IsCausal: true}, []*canon.Tensor{f("q", 2, 1, 2, 33, 16), f("k", 2, 1, 2, 33, 16), f("v", 1, 1, 2, 33, 7)}, y, 0},
		// Grouped 3-D heads, a cache, a causal cut and a float mask over every key.
		{"3-D grouped cache mask", &canon.Attention{QNumHeads: 4, KVNumHeads: 2, IsCausal: true}, []*canon.Tensor{
			f("q", 1, 2, 5, 4*6), f("k", 1, 2, 4, 2*6), f("v", 1, 2, 4, 2*3), f("m", 3, 5, 7), f("pk", 1, 2, 2, 3, 6), f("pv", 1, 2, 2, 3, 3)},
			[]string{"y", "pres_k", "pres_v"}, 0},
		// A float mask shorter than the keys, broadcast over heads.
		{"short float mask", &canon.Attention{}, []*canon.Tensor{f("q", 2, 2, 3, 17, 8), f("k", 2, 2, 3, 40, 8), f("v", 1, 2, 3, 40, 5), f("m", 4, 2, 1, 17, 31)}, y, 0},
		// A boolean mask shorter than the keys, and one with a dead row.
		{"bool mask", &canon.Attention{IsCausal: true}, []*canon.Tensor{f("q", 2, 1, 4, 20, 32), f("k", 2, 1, 4, 20, 32), f("v", 1, 1, 4, 20, 32), boolTensor(r, "m", 0.6, 20, 18)}, y, 0},
		{"dead row", &canon.Attention{}, []*canon.Tensor{f("q", 1, 1, 2, 9, 4), f("k", 1, 1, 2, 12, 4), f("v", 1, 1, 2, 12, 4), deadRow}, y, 0},
		// Large scores: the float32 differences from the maximum, whose
		// rounding grows with the scores, are where the two paths differ most.
		{"large scores", &canon.Attention{}, []*canon.Tensor{f("q", 12, 1, 2, 40, 32), f("k", 2, 1, 2, 40, 32), f("v", 1, 1, 2, 40, 32)}, y, 2e-6},
		// BERT's shape: 12 heads of 128 queries × 64.
		{"12 heads", &canon.Attention{}, []*canon.Tensor{f("q", 1, 1, 12, 128, 64), f("k", 1, 1, 12, 128, 64), f("v", 1, 1, 12, 128, 64)}, y, 0},
	}
}

// graph builds c's node with its inputs as graph inputs.
func (c attnCase) graph() (*canon.Graph, map[string]*canon.Tensor) {
	g := &canon.Graph{Name: "attn"}
	in := map[string]*canon.Tensor{}
	n := &canon.Node{Name: "att", Op: c.op, Outputs: c.outs}
	for _, t := range c.inputs {
		n.Inputs = append(n.Inputs, t.Name)
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: t.Name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true})
		in[t.Name] = t
	}
	for _, o := range c.outs {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o, DType: canon.Float32})
	}
	g.Nodes = []*canon.Node{n}
	return g, in
}

// TestAttentionBlocksMatchFloat64 runs every case in float32 blocks and on
// the float64 path: the outputs agree within float32 rounding (the
// present keys and values bit for bit), NaN where the float64 path has
// NaN, with whole heads and with row blocks.
func TestAttentionBlocksMatchFloat64(t *testing.T) {
	for _, c := range attnBlockCases(rand.New(rand.NewSource(35))) {
		g, in := c.graph()
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		attnBlocksOn = false
		want, err := Run(g, in)
		attnBlocksOn = true
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, rows := range []int{256, 16, 5} {
			func() {
				defer func(n int) { attnRowBlock = n }(attnRowBlock)
				attnRowBlock = rows
				got, err := Run(g, in)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				for _, o := range c.outs {
					gv, wv := floats(t, got[o]), floats(t, want[o])
					tol := c.tol
					switch {
					case o != "y":
						tol = 0
					case tol == 0:
						tol = 1e-6
					}
					worst := 0.0
					for i := range wv {
						if math.IsNaN(float64(wv[i])) != math.IsNaN(float64(gv[i])) {
							t.Fatalf("%s %s[%d] = %v, want %v", c.name, o, i, gv[i], wv[i])
						}
						if d := math.Abs(float64(gv[i] - wv[i])); d > worst {
							worst = d
						}
					}
					if worst > tol {
						t.Errorf("%s, row blocks of %d: %s differs by up to %g from the float64 path", c.name, rows, o, worst)
					}
				}
			}()
		}
	}
}
