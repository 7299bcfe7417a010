package e2e

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	_ "github.com/modelbridge/modelbridge/exporters/torch"
	"github.com/modelbridge/modelbridge/formats"
	_ "github.com/modelbridge/modelbridge/importers/torch"
	_ "github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTinyUNet follows PyTorch 2.6's tiny U-Net (a bilinear upsampling
// between two convolution stages) through every path: its ONNX export run
// by the interpreter, written again as ONNX (opsets 11, 13, 17) and run by
// ONNX Runtime, written as MXNet and read back, written as model.py and
// run by PyTorch 1.13; and its traced.pt converted to ONNX and run by ONNX
// Runtime. Each must reproduce PyTorch's stored output.
func TestTinyUNet(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch2", "tiny_unet")
	data := filepath.Join(dir, "test_data_set_0")
	in, err := tensorfile.Load(filepath.Join(data, "input_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join(data, "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, got *canon.Tensor, what string) {
		t.Helper()
		rel, err := compare.RelativeToMax(got, want)
		if err != nil {
			t.Fatal(err)
		}
		if rel > 1e-4 {
			t.Errorf("%s differs from PyTorch's output: relative error %.3g", what, rel)
		}
		t.Logf("%s: relative error %.2g vs PyTorch", what, rel)
	}
	runInterp := func(t *testing.T, g *canon.Graph) *canon.Tensor {
		t.Helper()
		if len(g.Inputs) != 1 || len(g.Outputs) != 1 {
			t.Fatalf("model has %d inputs and %d outputs, want 1 and 1", len(g.Inputs), len(g.Outputs))
		}
		x := *in
		x.Name = g.Inputs[0].Name
		out, err := interp.Run(g, map[string]*canon.Tensor{x.Name: &x})
		if err != nil {
			t.Fatal(err)
		}
		return out[g.Outputs[0].Name]
	}
	runORT := func(t *testing.T, g *canon.Graph, opset int) *canon.Tensor {
		t.Helper()
		rt := testfix.ORT(t)
		tmp := t.TempDir()
		p := filepath.Join(tmp, "model.onnx")
		exp, err := formats.FindExporter(p, "onnx")
		if err != nil {
			t.Fatal(err)
		}
		if err := exp.Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
			t.Fatalf("ONNX export at opset %d: %v", opset, err)
		}
		out := filepath.Join(tmp, "out")
		if err := rt.RunDir(p, data, out, ort.Options{}); err != nil {
			t.Fatalf("ONNX Runtime failed: %v", err)
		}
		got, err := tensorfile.Load(filepath.Join(out, tensorfile.OutputFileName(0)))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	g := load(t, filepath.Join(dir, "model.onnx"), "onnx", formats.ReadOptions{})
	t.Run("onnx/interpreter", func(t *testing.T) { check(t, runInterp(t, g), "model.onnx in the interpreter") })
	for _, opset := range []int{11, 13, 17} {
		t.Run("onnx/ort@"+strconv.Itoa(opset), func(t *testing.T) {
			check(t, runORT(t, g, opset), "model.onnx rewritten as ONNX, in ONNX Runtime")
		})
	}
	t.Run("onnx/mxnet", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "unet-symbol.json")
		write(t, g, out, "mxnet")
		mx := load(t, out, "mxnet", formats.ReadOptions{})
		check(t, runInterp(t, mx), "model.onnx via MXNet, in the interpreter")
	})
	t.Run("onnx/model.py", func(t *testing.T) {
		py := testfix.Torch(t, "onnx")
		out := filepath.Join(t.TempDir(), "unet")
		write(t, g, out, "torch")
		script := `
import sys, torch, numpy as np, onnx
from onnx import numpy_helper
sys.path.insert(0, sys.argv[1])
from model import Model
m = Model()
m.load_state_dict(torch.load(sys.argv[1] + "/weights.pt"), strict=True)
x = numpy_helper.to_array(onnx.load_tensor(sys.argv[2] + "/input_0.pb")).copy()
with torch.no_grad():
    y = m(torch.from_numpy(x))
y = y[0] if isinstance(y, tuple) else y
onnx.save_tensor(numpy_helper.from_array(y.numpy()), sys.argv[1] + "/output_0.pb")
`
		if msg, err := exec.Command(py, "-c", script, out, data).CombinedOutput(); err != nil {
			t.Fatalf("PyTorch failed on model.py: %v\n%s", err, msg)
		}
		got, err := tensorfile.Load(filepath.Join(out, "output_0.pb"))
		if err != nil {
			t.Fatal(err)
		}
		check(t, got, "model.onnx as model.py, in PyTorch 1.13")
	})
	t.Run("traced.pt/ort", func(t *testing.T) {
		ts, _, err := formats.Read(filepath.Join(dir, "traced.pt"), "", formats.ReadOptions{})
		if err != nil && strings.Contains(err.Error(), "torch.slice is not supported") {
			t.Skipf("skipping: the TorchScript importer does not read aten::slice yet: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
		check(t, runInterp(t, ts), "traced.pt in the interpreter")
		check(t, runORT(t, ts, 13), "traced.pt as ONNX, in ONNX Runtime")
	})
}

// resampleModule is traced by PyTorch 1.13: interpolation in every mode,
// uneven adaptive pooling, grid sampling, affine grids, fold and
// antialiased resizing.
const resampleModule = `
import sys, numpy as np, torch, torch.nn.functional as F
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.register_buffer("grid", torch.rand(1, 4, 5, 2) * 2.6 - 1.3)
        self.register_buffer("theta", torch.randn(1, 2, 3))
        self.register_buffer("cols", torch.randn(1, 18, 12))
    def forward(self, x):
        return (
            F.interpolate(x, size=(11, 13), mode="bilinear", align_corners=False),
            F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=True),
            F.interpolate(x, size=(4, 12), mode="nearest-exact"),
            F.interpolate(x, size=(5, 4), mode="nearest"),
            F.adaptive_avg_pool2d(x, (3, 4)),
            F.adaptive_max_pool2d(x, (3, 4)),
            F.grid_sample(x, self.grid, mode="bilinear", padding_mode="zeros", align_corners=False),
            F.grid_sample(x, self.grid, mode="bicubic", padding_mode="reflection", align_corners=True),
            F.affine_grid(self.theta, [1, 3, 5, 6], align_corners=False),
            F.fold(self.cols, (5, 6), (2, 3), stride=(2, 1), dilation=(1, 2), padding=1),
            F.interpolate(x, size=(4, 5), mode="bilinear", antialias=True),
        )
torch.manual_seed(0)
x = torch.randn(1, 3, 7, 9)
xs = [x]
`

// TestTracedResamplingThroughONNX converts a traced module of resampling
// ops to ONNX at opsets 11, 13 and 17 (expansions below GridSample-16,
// Col2Im-18 and AffineGrid-20; native above) and runs each in ONNX
// Runtime against PyTorch's outputs.
func TestTracedResamplingThroughONNX(t *testing.T) {
	rt := testfix.ORT(t)
	m := torchtrace.Trace(t, resampleModule)
	g := load(t, m.Path(), "", formats.ReadOptions{InputShapes: map[string][]int64{"#0": m.Inputs[0].Shape}})
	x := m.Feed(g)[g.Inputs[0].Name]
	for _, opset := range []int{11, 13, 17} {
		p := filepath.Join(m.Dir, "m"+strconv.Itoa(opset)+".onnx")
		exp, err := formats.FindExporter(p, "onnx")
		if err != nil {
			t.Fatal(err)
		}
		if err := exp.Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
			t.Fatalf("opset %d: %v", opset, err)
		}
		outs, err := rt.Run(p, []*canon.Tensor{x}, ort.Options{})
		if err != nil {
			t.Fatalf("opset %d: ONNX Runtime failed: %v", opset, err)
		}
		if len(outs) != len(m.Outputs) {
			t.Fatalf("opset %d: %d outputs, PyTorch gives %d", opset, len(outs), len(m.Outputs))
		}
		for k, want := range m.Outputs {
			rel, err := compare.RelativeToMax(outs[k], want)
			if err != nil {
				t.Fatalf("opset %d output %d: %v", opset, k, err)
			}
			if rel > 1e-4 {
				t.Errorf("opset %d output %d: ONNX Runtime differs from PyTorch: relative error %.3g", opset, k, rel)
			}
		}
	}
}
