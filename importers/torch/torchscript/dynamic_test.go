package torchscript

import (
	"path/filepath"
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

// TestTracedFixturesWithoutShapes imports every traced fixture without
// --input-shape (shufflenet reads its batch and spatial sizes with
// torch.size, which become Shape nodes), runs the graph in the interpreter
// and, exported to ONNX, in ONNX Runtime, and compares with PyTorch.
func TestTracedFixturesWithoutShapes(t *testing.T) {
	models := tracedModels(t)
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			g, err := ReadFile(filepath.Join(m.dir, "traced.pt"), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			in := *m.input
			in.Name = g.Inputs[0].Name
			outs, err := interp.Run(g, map[string]*canon.Tensor{in.Name: &in})
			if err != nil {
				t.Fatal(err)
			}
			rel, err := compare.RelativeToMax(outs[g.Outputs[0].Name], m.want)
			if err != nil {
				t.Fatal(err)
			}
			if rel > 1e-4 {
				t.Errorf("interpreter: relative error %.3g > 1e-4", rel)
			}
		})
	}
}

// TestTracedFixturesWithoutShapesORT exports the shape-free imports to
// ONNX (inputs of unknown rank) and runs them in ONNX Runtime on the
// fixtures' own inputs.
func TestTracedFixturesWithoutShapesORT(t *testing.T) {
	models := tracedModels(t)
	rt := testfix.ORT(t)
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			g, err := ReadFile(filepath.Join(m.dir, "traced.pt"), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			tmp := t.TempDir()
			model := filepath.Join(tmp, "model.onnx")
			if err := onnxexport.Write(g, model, formats.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			outDir := filepath.Join(tmp, "out")
			if err := rt.RunDir(model, filepath.Join(m.dir, "test_data_set_0"), outDir, ort.Options{}); err != nil {
				t.Fatalf("ONNX Runtime: %v", err)
			}
			got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(0)))
			if err != nil {
				t.Fatal(err)
			}
			rel, err := compare.RelativeToMax(got, m.want)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d nodes; ONNX Runtime max|a-b|/max|b| = %.3g", len(g.Nodes), rel)
			if rel > 1e-4 {
				t.Errorf("ONNX Runtime: relative error %.3g > 1e-4", rel)
			}
		})
	}
}
