package mxnetexport_test

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// TestAttentionRoundTrip: Attention written as its MXNet expansion (3-D
// and 4-D, scale, soft cap, float mask, causal) reads back and gives the
// interpreter's result.
func TestAttentionRoundTrip(t *testing.T) {
	for name, c := range map[string]struct {
		op      *canon.Attention
		q, k, v []int64
		mask    []int64
	}{
		"4d_gqa":      {&canon.Attention{}, []int64{2, 6, 4, 5}, []int64{2, 3, 6, 5}, []int64{2, 3, 6, 7}, nil},
		"4d_causal":   {&canon.Attention{IsCausal: true, Scale: 0.3}, []int64{1, 2, 4, 3}, []int64{1, 2, 4, 3}, []int64{1, 2, 4, 3}, nil},
		"3d_mask_cap": {&canon.Attention{QNumHeads: 2, KVNumHeads: 2, Softcap: 1.5}, []int64{2, 4, 6}, []int64{2, 5, 6}, []int64{2, 5, 8}, []int64{4, 5}},
		"4d_mask_causal": {&canon.Attention{IsCausal: true}, []int64{2, 2, 3, 4}, []int64{2, 2, 3, 4}, []int64{2, 2, 3, 4},
			[]int64{2, 1, 3, 3}},
	} {
		t.Run(name, func(t *testing.T) {
			vi := func(n string, s []int64) canon.ValueInfo {
				return canon.ValueInfo{Name: n, DType: canon.Float32, Shape: canon.DimsOf(s...), RankKnown: true}
			}
			g := &canon.Graph{Name: "attention", Inputs: []canon.ValueInfo{vi("q", c.q), vi("k", c.k), vi("v", c.v)}}
			ins := []string{"q", "k", "v"}
			if c.mask != nil {
				g.Inputs = append(g.Inputs, vi("mask", c.mask))
				ins = append(ins, "mask")
			}
			g.Nodes = []*canon.Node{{Name: "attn", Op: c.op, Inputs: ins, Outputs: []string{"y"}}}
			g.Outputs = []canon.ValueInfo{{Name: "y"}}
			if err := g.Infer(); err != nil {
				t.Fatal(err)
			}
			g.Outputs[0] = g.Values.Get("y")
			g.Outputs[0].Name = "y"
			g2 := roundTrip(t, g)
			in := exampleInputs(t, g)
			want, err := interp.Run(g, in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := interp.Run(g2, in)
			if err != nil {
				t.Fatal(err)
			}
			sameOutputs(t, want, got, g, g2, 1e-5)
		})
	}
}

// TestRotaryRoundTrip: RotaryEmbedding written as its MXNet expansion
// (4-D and 3-D, halves and interleaved pairs, partial rotation, position
// ids or per-position caches) reads back and gives the interpreter's
// result.
func TestRotaryRoundTrip(t *testing.T) {
	for name, c := range map[string]struct {
		op   *canon.RotaryEmbedding
		x    []int64
		pos  bool
		half int64
	}{
		"4d_pos":              {&canon.RotaryEmbedding{}, []int64{2, 3, 4, 6}, true, 3},
		"4d_interleaved_part": {&canon.RotaryEmbedding{Interleaved: true, RotaryDim: 4}, []int64{2, 3, 4, 6}, false, 2},
		"3d_pos_interleaved":  {&canon.RotaryEmbedding{Interleaved: true, NumHeads: 2}, []int64{2, 4, 8}, true, 2},
	} {
		t.Run(name, func(t *testing.T) {
			vi := func(n string, s ...int64) canon.ValueInfo {
				return canon.ValueInfo{Name: n, DType: canon.Float32, Shape: canon.DimsOf(s...), RankKnown: true}
			}
			seq := c.x[len(c.x)-2]
			if len(c.x) == 3 {
				seq = c.x[1]
			}
			g := &canon.Graph{Name: "rotary", Inputs: []canon.ValueInfo{vi("x", c.x...)}}
			ins := []string{"x", "cos", "sin"}
			if c.pos {
				g.Inputs = append(g.Inputs, vi("cos", 7, c.half), vi("sin", 7, c.half))
				g.Initializers = append(g.Initializers, canon.NewInt64Tensor("pos", []int64{c.x[0], seq}, make([]int64, c.x[0]*seq)))
				ids, _ := g.Initializers[0].Int64s()
				for i := range ids {
					ids[i] = int64((i*3 + 1) % 7)
				}
				g.Initializers[0] = canon.NewInt64Tensor("pos", []int64{c.x[0], seq}, ids)
				ins = append(ins, "pos")
			} else {
				g.Inputs = append(g.Inputs, vi("cos", c.x[0], seq, c.half), vi("sin", c.x[0], seq, c.half))
			}
			g.Nodes = []*canon.Node{{Name: "rope", Op: c.op, Inputs: ins, Outputs: []string{"y"}}}
			g.Outputs = []canon.ValueInfo{{Name: "y"}}
			if err := g.Infer(); err != nil {
				t.Fatal(err)
			}
			g.Outputs[0] = g.Values.Get("y")
			g.Outputs[0].Name = "y"
			g2 := roundTrip(t, g)
			in := exampleInputs(t, g)
			want, err := interp.Run(g, in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := interp.Run(g2, in)
			if err != nil {
				t.Fatal(err)
			}
			sameOutputs(t, want, got, g, g2, 1e-5)
		})
	}
}
