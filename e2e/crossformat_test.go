// Package e2e holds end-to-end tests that cross formats: a model read in one
// format, written in another, and run both by the interpreter and by ONNX
// Runtime, against the frameworks' own reference outputs.
package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	_ "github.com/modelbridge/modelbridge/exporters/mxnet"
	_ "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	_ "github.com/modelbridge/modelbridge/importers/mxnet"
	_ "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// mxnetCheckpoints are the MXNet fixtures with weights, with the input
// shapes their symbols need.
var mxnetCheckpoints = []struct {
	symbol string
	shapes map[string][]int64
}{
	{"go_test/go_test-symbol.json", map[string][]int64{"data": {1, 1, 2, 5}}},
	{"mtcnn/det1-symbol.json", map[string][]int64{"data": {1, 3, 12, 12}}},
	{"mtcnn/det2-symbol.json", map[string][]int64{"data": {1, 3, 24, 24}}},
	{"tutorial_autoencoder/Autoencoder-symbol.json", map[string][]int64{"input": {2, 784}}},
	{"tutorial_cnn/Neural_Net-symbol.json", map[string][]int64{"data": {2, 1, 28, 28}}},
	{"tutorial_fc/Neural_Net-symbol.json", map[string][]int64{"data": {2, 784}}},
}

func load(t *testing.T, path, format string, opts formats.ReadOptions) *canon.Graph {
	t.Helper()
	g, _, err := formats.Read(path, format, opts)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("validate %s: %v", path, err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func write(t *testing.T, g *canon.Graph, path, format string) {
	t.Helper()
	exp, err := formats.FindExporter(path, format)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Write(g, path, formats.WriteOptions{}); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}

// TestMXNetToONNXInORT converts each MXNet checkpoint to ONNX, runs the
// ONNX file in ONNX Runtime and the MXNet files in the interpreter, and
// compares the two.
func TestMXNetToONNXInORT(t *testing.T) {
	fix := filepath.Join(testfix.Fixtures(t), "mxnet")
	rt := testfix.ORT(t)
	for _, c := range mxnetCheckpoints {
		t.Run(filepath.Dir(c.symbol)+"/"+filepath.Base(c.symbol), func(t *testing.T) {
			dir := t.TempDir()
			g := load(t, filepath.Join(fix, c.symbol), "", formats.ReadOptions{InputShapes: c.shapes})
			onnxPath := filepath.Join(dir, "model.onnx")
			write(t, g, onnxPath, "onnx")

			inputs, err := tensorfile.Random(g.Inputs, c.shapes, 11)
			if err != nil {
				t.Fatal(err)
			}
			inDir := filepath.Join(dir, "in")
			os.MkdirAll(inDir, 0o755)
			for i, in := range g.Inputs {
				if err := tensorfile.Save(inputs[in.Name], filepath.Join(inDir, "input_"+strconv.Itoa(i)+".pb")); err != nil {
					t.Fatal(err)
				}
			}
			want, err := interp.Run(g, inputs)
			if err != nil {
				t.Fatalf("interpreter on the MXNet model: %v", err)
			}
			outDir := filepath.Join(dir, "out")
			if err := rt.RunDir(onnxPath, inDir, outDir, ort.Options{}); err != nil {
				t.Fatalf("ONNX Runtime failed on the exported model: %v", err)
			}
			for i, o := range g.Outputs {
				got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(i)))
				if err != nil {
					t.Fatal(err)
				}
				rel, err := compare.RelativeToMax(got, want[o.Name])
				if err != nil {
					t.Fatalf("output %q: %v", o.Name, err)
				}
				if rel > 1e-4 {
					t.Errorf("output %q: ONNX Runtime differs from the interpreter on the MXNet model: relative error %.3g", o.Name, rel)
				}
				t.Logf("output %q: ONNX Runtime vs interpreter relative error %.2g", o.Name, rel)
			}
		})
	}
}

// TestTorchONNXToMXNet writes each PyTorch-exported ONNX fixture as an MXNet
// checkpoint, reads it back, and checks the interpreter still reproduces
// PyTorch's stored output.
func TestTorchONNXToMXNet(t *testing.T) {
	fix := filepath.Join(testfix.Fixtures(t), "torch")
	models, _ := filepath.Glob(filepath.Join(fix, "*", "model.onnx"))
	if len(models) == 0 {
		t.Fatalf("no torch fixtures under %s", fix)
	}
	for _, m := range models {
		name := filepath.Base(filepath.Dir(m))
		t.Run(name, func(t *testing.T) {
			g := load(t, m, "onnx", formats.ReadOptions{})
			out := filepath.Join(t.TempDir(), name+"-symbol.json")
			exp, err := formats.FindExporter(out, "mxnet")
			if err != nil {
				t.Fatal(err)
			}
			if err := exp.Write(g, out, formats.WriteOptions{}); err != nil {
				t.Fatalf("MXNet export: %v", err)
			}
			mx := load(t, out, "mxnet", formats.ReadOptions{})
			data := filepath.Join(filepath.Dir(m), "test_data_set_0")
			in, err := tensorfile.Load(filepath.Join(data, "input_0.pb"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := tensorfile.Load(filepath.Join(data, "output_0.pb"))
			if err != nil {
				t.Fatal(err)
			}
			if len(mx.Inputs) != 1 || len(mx.Outputs) != 1 {
				t.Fatalf("MXNet model has %d inputs and %d outputs, want 1 and 1", len(mx.Inputs), len(mx.Outputs))
			}
			in.Name = mx.Inputs[0].Name
			got, err := interp.Run(mx, map[string]*canon.Tensor{in.Name: in})
			if err != nil {
				t.Fatal(err)
			}
			rel, err := compare.RelativeToMax(got[mx.Outputs[0].Name], want)
			if err != nil {
				t.Fatal(err)
			}
			if rel > 1e-4 {
				t.Errorf("MXNet copy differs from PyTorch's output: relative error %.3g", rel)
			}
			t.Logf("%s via MXNet: relative error %.2g vs PyTorch", name, rel)
		})
	}
}
