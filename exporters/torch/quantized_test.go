package torchexport

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
)

// TestQuantizedModelsRunInTorch: the quantized TorchScript models of
// testdata/quantized (PyTorch 1.13, onednn), written as model.py, give
// PyTorch's own quantized outputs bit for bit when run in PyTorch, and
// their docstring says how the quantized ops are written.
func TestQuantizedModelsRunInTorch(t *testing.T) {
	py := torchPython(t)
	root := filepath.Join("..", "..", "testdata", "quantized")
	models, _ := filepath.Glob(filepath.Join(root, "*.pt"))
	if len(models) < 3 {
		t.Fatalf("want the quantized fixtures under %s, found %d", root, len(models))
	}
	for _, path := range models {
		name := strings.TrimSuffix(filepath.Base(path), ".pt")
		t.Run(name, func(t *testing.T) {
			data := filepath.Join(root, name+"_data")
			in, err := tensorfile.Load(filepath.Join(data, "input_0.pb"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := tensorfile.Load(filepath.Join(data, "output_0.pb"))
			if err != nil {
				t.Fatal(err)
			}
			g, err := torchscript.ReadFile(path, formats.ReadOptions{InputShapes: map[string][]int64{"#0": in.Shape}})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if !strings.Contains(docFor(g), "explicit integer arithmetic") {
				t.Errorf("docstring %q does not say how the quantized ops are written", docFor(g))
			}
			in.Name = g.Inputs[0].Name
			got := runModelPy(t, py, g, map[string]*canon.Tensor{in.Name: in})[0]
			if got.DType != want.DType || fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) || string(got.Data) != string(want.Data) {
				t.Errorf("model.py in PyTorch gives %v, PyTorch's quantized model %v", got, want)
			}
		})
	}
}
