package optimize

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTorchFixtures runs the default pipeline on every real PyTorch-made
// model: no foldable BatchNorm, Identity or Dropout may remain, and the
// optimized model still reproduces PyTorch's own output.
func TestTorchFixtures(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch")
	models, err := filepath.Glob(filepath.Join(dir, "*", "model.onnx"))
	if err != nil || len(models) == 0 {
		t.Fatalf("no torch/*/model.onnx fixtures in %s (err %v); the fixture folder is incomplete", dir, err)
	}
	sort.Strings(models)
	for _, path := range models {
		name := filepath.Base(filepath.Dir(path))
		t.Run(name, func(t *testing.T) {
			g, err := onnximport.Read(path, formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			opt, rep, err := Optimize(g, Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d -> %d nodes, modelled %.3f -> %.3f ms, %.1f -> %.1f MFLOP, launches %d -> %d",
				name, rep.NodesBefore, rep.NodesAfter, rep.Before.Cost()*1e3, rep.After.Cost()*1e3,
				rep.Before.Total.FLOPs/1e6, rep.After.Total.FLOPs/1e6, rep.Before.Total.Launches, rep.After.Total.Launches)
			if testing.Verbose() {
				WriteCostTable(os.Stderr, rep.Before, rep.After)
			}
			checkNoFoldable(t, opt)
			tb, ta := countOps(g)["Transpose"], countOps(opt)["Transpose"]
			t.Logf("%s: %d -> %d Transposes", name, tb, ta)
			if ta > tb {
				t.Errorf("the pipeline added Transposes: %d -> %d", tb, ta)
			}

			td := filepath.Join(filepath.Dir(path), "test_data_set_0")
			in, err := tensorfile.LoadDir(td, g.Inputs)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tensorfile.Load(filepath.Join(td, "output_0.pb"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := interp.Run(opt, in)
			if err != nil {
				t.Fatal(err)
			}
			gv, err := got[opt.Outputs[0].Name].Float64s()
			if err != nil {
				t.Fatal(err)
			}
			wv, err := want.Float64s()
			if err != nil {
				t.Fatal(err)
			}
			if len(gv) != len(wv) {
				t.Fatalf("output has %d elements, reference %d", len(gv), len(wv))
			}
			var maxDiff, maxRef float64
			for i := range gv {
				maxDiff = math.Max(maxDiff, math.Abs(gv[i]-wv[i]))
				maxRef = math.Max(maxRef, math.Abs(wv[i]))
			}
			t.Logf("max|a-b| = %.3g, max|b| = %.3g", maxDiff, maxRef)
			if maxDiff > 1e-4*maxRef {
				t.Errorf("optimized output differs from PyTorch's: max|a-b| = %.3g > 1e-4 * %.3g", maxDiff, maxRef)
			}
		})
	}
}

// checkNoFoldable fails on an Identity or Dropout, or a BatchNorm whose
// input comes from a node with a constant weight it could fold into
// (affineWeight) and that it alone reads.
func checkNoFoldable(t *testing.T, g *canon.Graph) {
	t.Helper()
	ix := newIndex(g)
	for _, n := range g.Nodes {
		switch n.Op.(type) {
		case *canon.Identity, *canon.Dropout:
			t.Errorf("%s remains", nodeRef(n))
		case *canon.BatchNorm:
			p := ix.producer[n.Inputs[0]]
			if p == nil {
				continue
			}
			if _, foldable := affineWeight(ix, p); foldable && ix.onlyFeeds(n.Inputs[0], n) {
				t.Errorf("%s after %s was not folded", nodeRef(n), nodeRef(p))
			}
		}
	}
}
