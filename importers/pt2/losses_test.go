package pt2

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// lossCases are programs of ../shared/fixtures/torch2-ops whose aten
// losses, distances and recurrent cells the importer expands.
var lossCases = []string{
	"nn_mseloss", "nn_l1loss", "nn_huberloss", "nn_smoothl1loss", "nn_bceloss", "nn_bcewithlogitsloss",
	"nn_crossentropyloss", "nn_crossentropyloss_2d_weight_ignore", "nn_crossentropyloss_probs_smoothing",
	"nn_nllloss", "nn_kldivloss", "nn_poissonnllloss", "nn_margin_losses", "nn_triplet_losses",
	"nn_cosinesimilarity_pairwisedistance", "op_cdist", "tv_sigmoid_focal_loss",
	"nn_grucell", "nn_lstmcell", "nn_rnncell", "nn_lstm", "nn_lstm_h0c0", "nn_lstm_2layer_bidir_proj",
}

// TestLossFixtures imports each case's exported.pt2 and checks its
// outputs on test_data_set_0 against PyTorch 2.6's, in the interpreter
// and, exported to ONNX, in ONNX Runtime when it is installed.
func TestLossFixtures(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "torch2-ops")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("skipping: no torch2-ops fixtures under %s", root)
	}
	rt, ortErr := ort.Find("")
	for _, name := range lossCases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			ins, _ := filepath.Glob(filepath.Join(dir, "test_data_set_0", "input_*.pb"))
			outs, _ := filepath.Glob(filepath.Join(dir, "test_data_set_0", "output_*.pb"))
			sort.Strings(ins)
			sort.Strings(outs)
			g, err := Read(filepath.Join(dir, "exported.pt2"), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if len(g.Inputs) != len(ins) || len(g.Outputs) != len(outs) {
				t.Fatalf("%d inputs and %d outputs, the test data %d and %d", len(g.Inputs), len(g.Outputs), len(ins), len(outs))
			}
			feed := map[string]*canon.Tensor{}
			for i, p := range ins {
				v, err := tensorfile.Load(p)
				if err != nil {
					t.Fatal(err)
				}
				v.Name = g.Inputs[i].Name
				feed[v.Name] = v
			}
			res, err := interp.Run(g, feed)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]*canon.Tensor, len(outs))
			for k, p := range outs {
				if want[k], err = tensorfile.Load(p); err != nil {
					t.Fatal(err)
				}
				r, err := compare.Tensors(res[g.Outputs[k].Name], want[k], 1e-5, 1e-5)
				if err != nil || !r.OK {
					t.Errorf("output %d differs from PyTorch: %+v %v", k, r, err)
				}
			}
			if ortErr != nil {
				t.Logf("ONNX Runtime not run: %v", ortErr)
			}
			if ortErr != nil || t.Failed() {
				return
			}
			tmp := t.TempDir()
			model := filepath.Join(tmp, "model.onnx")
			if err := onnxexport.Write(g, model, formats.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			inDir := filepath.Join(tmp, "in")
			if err := os.MkdirAll(inDir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, in := range g.Inputs {
				if err := tensorfile.Save(feed[in.Name], filepath.Join(inDir, fmt.Sprintf("input_%d.pb", i))); err != nil {
					t.Fatal(err)
				}
			}
			outDir := filepath.Join(tmp, "out")
			if err := rt.RunDir(model, inDir, outDir, ort.Options{}); err != nil {
				t.Fatalf("ONNX Runtime: %v", err)
			}
			for k := range outs {
				got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(k)))
				if err != nil {
					t.Fatal(err)
				}
				r, err := compare.Tensors(got, want[k], 1e-5, 1e-5)
				if err != nil || !r.OK {
					t.Errorf("output %d: ONNX Runtime differs from PyTorch: %+v %v", k, r, err)
				}
			}
		})
	}
}
