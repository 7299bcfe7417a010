package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestShapelessModelsAtTwoBatchSizes converts models whose files record no
// input shape (TorchScript traces, an MXNet symbol) to ONNX without
// --input-shape: the inputs get a rank and a named dim per axis, and the one
// ONNX file runs in ONNX Runtime at two batch sizes, matching the
// interpreter on the original model read with those shapes.
func TestShapelessModelsAtTwoBatchSizes(t *testing.T) {
	fix := testfix.Fixtures(t)
	rt := testfix.ORT(t)
	cases := []struct {
		path, key string
		shape     []int64 // axis 0 is replaced by each batch size
	}{
		{"torch/tiny_convnet/traced.pt", "#0", []int64{0, 3, 32, 32}},
		{"torch/deconv_net/traced.pt", "#0", []int64{0, 3, 16, 16}},
		{"mxnet/mtcnn/det1-symbol.json", "data", []int64{0, 3, 12, 12}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			src := filepath.Join(fix, c.path)
			g := load(t, src, "", formats.ReadOptions{})
			defer g.Close()
			in := g.Inputs[0]
			if !in.RankKnown || len(in.Shape) != len(c.shape) {
				t.Fatalf("input %q read as rank known %v, shape %v; want rank %d", in.Name, in.RankKnown, in.Shape, len(c.shape))
			}
			for a, d := range in.Shape {
				if d.Known() || d.Param == "" {
					t.Errorf("input %q axis %d is %+v, want a named free dim", in.Name, a, d)
				}
			}
			for _, o := range g.Outputs {
				if !o.RankKnown || len(o.Shape) == 0 || o.Shape[0].Param != in.Shape[0].Param {
					t.Errorf("output %q is %v; want axis 0 named %s, the input's", o.Name, o.Shape, in.Shape[0].Param)
				}
			}
			dir := t.TempDir()
			model := filepath.Join(dir, "model.onnx")
			write(t, g, model, "onnx")
			for _, batch := range []int64{1, 3} {
				shape := append([]int64{batch}, c.shape[1:]...)
				static := load(t, src, "", formats.ReadOptions{InputShapes: map[string][]int64{c.key: shape}})
				inputs, err := tensorfile.Random(static.Inputs, nil, uint64(batch))
				if err != nil {
					t.Fatal(err)
				}
				want, err := interp.Run(static, inputs)
				if err != nil {
					t.Fatalf("interpreter at batch %d: %v", batch, err)
				}
				got := runFile(t, rt, model, filepath.Join(dir, fmt.Sprint(batch)), []*canon.Tensor{inputs[static.Inputs[0].Name]}, len(static.Outputs))
				for i, o := range static.Outputs {
					rel, err := compare.RelativeToMax(got[i], want[o.Name])
					if err != nil {
						t.Fatalf("batch %d output %q: %v", batch, o.Name, err)
					}
					if rel > 1e-4 {
						t.Errorf("batch %d output %q: ONNX Runtime differs from the interpreter: relative error %.3g", batch, o.Name, rel)
					}
				}
				static.Close()
			}
		})
	}
}

// runFile runs an ONNX file in ONNX Runtime on inputs (in input order).
func runFile(t *testing.T, rt *ort.Runtime, model, dir string, inputs []*canon.Tensor, outputs int) []*canon.Tensor {
	t.Helper()
	inDir, outDir := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.MkdirAll(inDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, x := range inputs {
		if err := tensorfile.Save(x, filepath.Join(inDir, "input_"+strconv.Itoa(i)+".pb")); err != nil {
			t.Fatal(err)
		}
	}
	if err := rt.RunDir(model, inDir, outDir, ort.Options{}); err != nil {
		t.Fatalf("ONNX Runtime failed: %v", err)
	}
	var outs []*canon.Tensor
	for i := 0; i < outputs; i++ {
		got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(i)))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, got)
	}
	return outs
}
