package optimize

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestPassesLeaveControlFlowIntact runs the default pipeline, verified, on
// graphs whose nodes own subgraphs: passes leave such nodes and the values
// they capture alone, so the results must not change.
func TestPassesLeaveControlFlowIntact(t *testing.T) {
	for _, kind := range []string{"If", "Loop", "Scan"} {
		g, err := canon.Lookup(kind).ExampleGraph()
		if err != nil {
			t.Fatal(err)
		}
		g = wrapCaptures(t, g)
		if _, _, err := Optimize(g, Options{Verify: true, Samples: 2}); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
	models, _ := filepath.Glob(filepath.Join(testfix.Fixtures(t), "onnx-node-1.22", "test_*", "model.onnx"))
	ran := 0
	for _, path := range models {
		name := filepath.Base(filepath.Dir(path))
		g, err := onnximport.Read(path, formats.ReadOptions{})
		if err != nil {
			continue
		}
		if !canon.GraphHasSubgraphs(g) {
			g.Close()
			continue
		}
		ran++
		if _, _, err := Optimize(g, Options{Verify: true, Samples: 1}); err != nil {
			var ue *UnverifiableError
			if !errors.As(err, &ue) {
				t.Errorf("%s: %v", name, err)
			}
		}
		g.Close()
	}
	if ran == 0 {
		t.Fatal("no node-suite model with subgraphs was read")
	}
	t.Logf("optimized and verified %d node-suite models with subgraphs", ran)
}

// wrapCaptures puts foldable work (a double transpose) in front of every
// graph input the example's node reads, so that passes have something to
// rewrite right where the captures come from.
func wrapCaptures(t *testing.T, g *canon.Graph) *canon.Graph {
	t.Helper()
	n := g.Nodes[0]
	var pre []*canon.Node
	for i, in := range n.Inputs {
		var info canon.ValueInfo
		for _, v := range g.Inputs {
			if v.Name == in {
				info = v
			}
		}
		if info.Name == "" || len(info.Shape) < 2 {
			continue
		}
		perm := make([]int64, len(info.Shape))
		for k := range perm {
			perm[k] = int64(len(perm) - 1 - k)
		}
		a, b := in+"_t", in+"_tt"
		pre = append(pre,
			&canon.Node{Name: a, Op: &canon.Transpose{Perm: perm}, Inputs: []string{in}, Outputs: []string{a}},
			&canon.Node{Name: b, Op: &canon.Transpose{Perm: perm}, Inputs: []string{a}, Outputs: []string{b}})
		n.Inputs[i] = b
	}
	g.Nodes = append(pre, g.Nodes...)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestInlineConstantBranch checks that an If on a constant condition is
// replaced by its taken branch, and that the result is verified equal.
func TestInlineConstantBranch(t *testing.T) {
	for _, cond := range []byte{0, 1} {
		g, err := canon.Lookup("If").ExampleGraph()
		if err != nil {
			t.Fatal(err)
		}
		g.Initializers[0] = &canon.Tensor{Name: g.Initializers[0].Name, DType: canon.Bool, Shape: []int64{}, Data: []byte{cond}}
		opt, _, err := Optimize(g, Options{Verify: true, Samples: 2})
		if err != nil {
			t.Fatalf("cond %d: %v", cond, err)
		}
		want := map[byte]string{0: "Tanh", 1: "Relu"}[cond]
		if len(opt.Nodes) != 1 || opt.Nodes[0].Op.Kind() != want {
			var kinds []string
			for _, n := range opt.Nodes {
				kinds = append(kinds, n.Op.Kind())
			}
			t.Errorf("cond %d: nodes %v, want the %s branch alone", cond, kinds, want)
		}
	}
}
