package mxnetexport_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
)

// TestNormForms: GroupNorm's gamma and beta go per group (MXNet 1.x's
// shape) when each group's channels share them, and through a unit
// GroupNorm and per-channel broadcasts otherwise; a LayerNorm without bias
// gets zeros. Each comes back computing the same.
func TestNormForms(t *testing.T) {
	f32 := func(name string, shape []int64, v ...float32) *canon.Tensor {
		return canon.NewFloat32Tensor(name, shape, v)
	}
	for _, c := range []struct {
		name       string
		op         canon.Op
		inits      []*canon.Tensor
		wantInSym  string
		wantAbsent string
	}{
		{"uniform groups", &canon.GroupNorm{NumGroups: 2, Epsilon: 1e-3, Stash: canon.Float32},
			[]*canon.Tensor{f32("s", []int64{4}, 2, 2, -1, -1), f32("b", []int64{4}, 0.5, 0.5, 1, 1)}, `"GroupNorm"`, "broadcast_mul"},
		{"per channel", &canon.GroupNorm{NumGroups: 2, Epsilon: 1e-3, Stash: canon.Float32},
			[]*canon.Tensor{f32("s", []int64{4}, 2, 1, -1, 3), f32("b", []int64{4}, 0.5, 0, 1, 2)}, "broadcast_mul", ""},
		{"layer norm without bias", &canon.LayerNorm{Axis: -1, Epsilon: 1e-3, Stash: canon.Float32},
			[]*canon.Tensor{f32("s", []int64{5}, 1, 2, 3, 4, 5)}, `"LayerNorm"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &canon.Graph{Name: "n", Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 4, 3, 5), RankKnown: true}},
				Initializers: c.inits, Outputs: []canon.ValueInfo{{Name: "y"}}}
			ins := []string{"x"}
			for _, in := range c.inits {
				ins = append(ins, in.Name)
			}
			g.Nodes = []*canon.Node{{Name: "norm", Op: c.op, Inputs: ins, Outputs: []string{"y"}}}
			canon.AssignLayouts(g)
			if err := g.Infer(); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "m-symbol.json")
			if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			sym, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(sym), c.wantInSym) || (c.wantAbsent != "" && strings.Contains(string(sym), c.wantAbsent)) {
				t.Errorf("symbol %s, want %s and no %q", sym, c.wantInSym, c.wantAbsent)
			}
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
