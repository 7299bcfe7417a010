package torchscript

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// TestQuantizedFixtures: the quantized models of testdata/quantized (made
// by testdata/make_quantized_fixtures.py with PyTorch 1.13, onednn) give
// PyTorch's own outputs bit for bit: dequantized floats and integers.
func TestQuantizedFixtures(t *testing.T) {
	root := filepath.Join("..", "..", "..", "testdata", "quantized")
	models, _ := filepath.Glob(filepath.Join(root, "*.pt"))
	if len(models) < 3 {
		t.Fatalf("want the quantized fixtures under %s, found %d", root, len(models))
	}
	for _, path := range models {
		name := filepath.Base(path[:len(path)-3])
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
			g, err := ReadFile(path, formats.ReadOptions{InputShapes: map[string][]int64{"#0": in.Shape}})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			in.Name = g.Inputs[0].Name
			res, err := interp.Run(g, map[string]*canon.Tensor{in.Name: in})
			if err != nil {
				t.Fatal(err)
			}
			got := res[g.Outputs[0].Name]
			if !sameTensor(got, want) {
				t.Errorf("output differs from PyTorch's:\n got %v\nwant %v", got, want)
			}
		})
	}
}

func sameTensor(a, b *canon.Tensor) bool {
	return a.DType == b.DType && fmt.Sprint(a.Shape) == fmt.Sprint(b.Shape) && string(a.Data) == string(b.Data)
}

// quantizedSteps runs a traced folder's import and counts, per output
// (integers: int_repr of quantized results), the entries that differ from
// PyTorch's and the largest difference in quantization steps.
func quantizedSteps(t *testing.T, dir string, nOut int) (differ, maxSteps []int64, total []int) {
	t.Helper()
	g, ins, err := readTraced(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	feed := map[string]*canon.Tensor{}
	for k, v := range ins {
		v.Name = g.Inputs[k].Name
		feed[v.Name] = v
	}
	res, err := interp.Run(g, feed)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Outputs) != nOut {
		t.Fatalf("%d outputs, PyTorch gives %d", len(g.Outputs), nOut)
	}
	for k, o := range g.Outputs {
		want, err := tensorfile.Load(filepath.Join(dir, fmt.Sprintf("y%d.npy", k)))
		if err != nil {
			t.Fatal(err)
		}
		got := res[o.Name]
		if got.DType != want.DType || fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) || !got.DType.IsInt() {
			t.Fatalf("output %d is %s%v, PyTorch's %s%v (want integers)", k, got.DType, got.Shape, want.DType, want.Shape)
		}
		a, _ := got.Int64s()
		b, _ := want.Int64s()
		var n, worst int64
		for i := range a {
			d := a[i] - b[i]
			if d < 0 {
				d = -d
			}
			if d > 0 {
				n++
			}
			worst = max(worst, d)
		}
		differ, maxSteps, total = append(differ, n), append(maxSteps, worst), append(total, len(a))
	}
	return differ, maxSteps, total
}

const quantizedPrologue = `
import torch.ao.quantization as tq
torch.backends.quantized.engine = "onednn"
torch.manual_seed(7)
`

// TestTracedQuantizedLayers: quantized conv (per-channel and per-tensor
// weights, groups, strides, dilation, ReLU fused), conv1d and linear
// (+ReLU) give PyTorch 1.13's integers exactly on 32 inputs.
func TestTracedQuantizedLayers(t *testing.T) {
	dir, nOut := trace(t, quantizedPrologue+`
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q = tq.QuantStub()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.r1 = torch.nn.ReLU()
        self.c2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=2, dilation=2, groups=4)
        self.c3 = torch.nn.Conv2d(8, 4, 1, bias=False)
        self.fc = torch.nn.Linear(4 * 5 * 5, 7)
        self.fr = torch.nn.ReLU()
    def forward(self, x):
        a = self.r1(self.c1(self.q(x)))
        b = self.c2(a)
        c = self.c3(b)
        d = self.fr(self.fc(torch.flatten(c, 1)))
        return a, b, c, d
def make(per_channel):
    n = Net().eval()
    n.qconfig = tq.get_default_qconfig("onednn") if per_channel else tq.QConfig(
        activation=tq.HistogramObserver.with_args(reduce_range=False), weight=tq.default_weight_observer)
    tq.fuse_modules(n, [["c1", "r1"], ["fc", "fr"]], inplace=True)
    tq.prepare(n, inplace=True)
    for _ in range(8):
        n(torch.randn(4, 3, 10, 10) * 2)
    return tq.convert(n)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pc, self.pt = make(True), make(False)
    def forward(self, x):
        return [t.int_repr() for t in self.pc(x) + self.pt(x)]
xs = [torch.randn(32, 3, 10, 10) * 2]
`)
	t.Run("ORT", func(t *testing.T) { compareQuantizedORT(t, dir, 0, 0) })
	differ, steps, total := quantizedSteps(t, dir, nOut)
	for k := range differ {
		t.Logf("output %d: %d of %d entries differ, max %d steps", k, differ[k], total[k], steps[k])
		if differ[k] != 0 {
			t.Errorf("output %d: %d of %d integers differ from PyTorch's (max %d steps); the layers must be exact", k, differ[k], total[k], steps[k])
		}
	}
}

// TestTracedQuantizedElementwise: quantized add, add_relu, mul, cat,
// hardswish, relu, pooling and flatten on 32 inputs. cat, relu and
// pooling are exact; add, mul and hardswish within one step (PyTorch's
// vectorized and scalar loops round the dequantized floats differently).
func TestTracedQuantizedElementwise(t *testing.T) {
	dir, nOut := trace(t, quantizedPrologue+`
class M(torch.nn.Module):
    def forward(self, x):
        a = torch.quantize_per_tensor(x, 0.031, 121, torch.quint8)
        b = torch.quantize_per_tensor(x * x - 1, 0.027, 61, torch.quint8)
        return [t.int_repr() for t in (
            torch.ops.quantized.add(a, b, 0.05, 100),
            torch.ops.quantized.add_relu(a, b, 0.043, 0),
            torch.ops.quantized.mul(a, b, 0.07, 90),
            torch.ops.quantized.cat([a, b], 1, 0.04, 110),
            torch.cat([a, b], 2),
            torch.ops.quantized.hardswish(a, 0.02, 30),
            torch.relu(a),
            F.max_pool2d(a, 2),
            F.adaptive_avg_pool2d(b, 1),
            F.avg_pool2d(a, 2),
            F.adaptive_avg_pool2d(a, 2),
            torch.flatten(b, 1))]
xs = [torch.randn(32, 6, 9, 9) * 2]
`)
	t.Run("ORT", func(t *testing.T) { compareQuantizedORT(t, dir, 0, 0) })
	differ, steps, total := quantizedSteps(t, dir, nOut)
	exact := map[int]bool{3: true, 4: true, 6: true, 7: true, 8: true, 9: true, 10: true, 11: true}
	for k := range differ {
		t.Logf("output %d: %d of %d entries differ, max %d steps", k, differ[k], total[k], steps[k])
		if steps[k] > 1 || exact[k] && differ[k] != 0 {
			t.Errorf("output %d: %d of %d integers differ from PyTorch's, max %d steps", k, differ[k], total[k], steps[k])
		}
	}
}

// TestTracedQuantizedFunctionalFX: FX-mode quantization of functional
// conv2d and linear stores packed parameters as
// Conv2dPackedParamsBase/LinearPackedParamsBase objects (the conv one in
// the version-2 form) and scales and zero points as tensors; the output
// equals PyTorch's bit for bit on 32 inputs, also in ONNX Runtime.
func TestTracedQuantizedFunctionalFX(t *testing.T) {
	dir, nOut := trace(t, quantizedPrologue+`
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(6, 3, 3, 3) * 0.3)
        self.b = torch.nn.Parameter(torch.randn(6))
        self.lw = torch.nn.Parameter(torch.randn(5, 6) * 0.3)
    def forward(self, x):
        y = F.relu(F.conv2d(x, self.w, self.b, [2, 2], [1, 1], [1, 1], 1))
        return F.linear(F.adaptive_avg_pool2d(y, 1).flatten(1), self.lw)
ex = torch.randn(2, 3, 8, 8)
p = prepare_fx(Net().eval(), tq.get_default_qconfig_mapping("onednn"), example_inputs=(ex,))
for _ in range(8):
    p(torch.randn(4, 3, 8, 8) * 2)
q = convert_fx(p)
def M():
    return q
xs = [torch.randn(32, 3, 8, 8) * 2]
`)
	compareTraced(t, dir, nOut, 0, 0)
	t.Run("ORT", func(t *testing.T) { compareQuantizedORT(t, dir, 0, 0) })
}

// TestTracedQuantizedBatchNorm: quantized::batch_norm2d (a BatchNorm left
// unfused) gives PyTorch's integers exactly on 32 inputs.
func TestTracedQuantizedBatchNorm(t *testing.T) {
	dir, nOut := trace(t, quantizedPrologue+`
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.rand(6) + 0.5)
        self.register_buffer("b", torch.randn(6))
        self.register_buffer("m", torch.randn(6) * 0.3)
        self.register_buffer("v", torch.rand(6) + 0.2)
    def forward(self, x):
        a = torch.quantize_per_tensor(x, 0.029, 117, torch.quint8)
        y = torch.ops.quantized.batch_norm2d(a, self.w, self.b, self.m, self.v, 1e-5, 0.047, 83)
        z = torch.ops.quantized.batch_norm2d(a, self.v, self.m, self.b, self.w, 1e-3, 0.031, 130)
        return y.int_repr(), z.int_repr()
xs = [torch.randn(32, 6, 9, 9) * 2]
`)
	differ, steps, total := quantizedSteps(t, dir, nOut)
	for k := range differ {
		t.Logf("output %d: %d of %d entries differ, max %d steps", k, differ[k], total[k], steps[k])
		if differ[k] != 0 {
			t.Errorf("output %d: %d of %d integers differ from PyTorch's (max %d steps)", k, differ[k], total[k], steps[k])
		}
	}
	t.Run("ORT", func(t *testing.T) { compareQuantizedORT(t, dir, 0, 0) })
}

// TestTracedQuantizedMoreOps: hardsigmoid (fixed output scale 1/256),
// chunk, channel shuffle through view/transpose with sizes read from the
// quantized tensor, and the mean over the last dimensions (an even count,
// so rounding ties occur) give PyTorch's integers exactly.
func TestTracedQuantizedMoreOps(t *testing.T) {
	dir, nOut := trace(t, quantizedPrologue+`
class M(torch.nn.Module):
    def forward(self, x):
        a = torch.quantize_per_tensor(x, 0.031, 121, torch.quint8)
        h = F.hardsigmoid(a)
        p, q = a.chunk(2, dim=1)
        n, c, hh, ww = a.size()
        s = a.view(n, 2, c // 2, hh, ww).transpose(1, 2).contiguous().view(n, c, hh, ww)
        return [t.int_repr() for t in (h, p, q, s, a.mean([2, 3]), a.mean([3], keepdim=True), a.mean([-1, -2]))]
xs = [torch.randn(16, 8, 8, 8) * 3]
`)
	differ, steps, total := quantizedSteps(t, dir, nOut)
	for k := range differ {
		t.Logf("output %d: %d of %d entries differ, max %d steps", k, differ[k], total[k], steps[k])
		if differ[k] != 0 {
			t.Errorf("output %d: %d of %d integers differ from PyTorch's (max %d steps)", k, differ[k], total[k], steps[k])
		}
	}
}

// compareQuantizedORT imports the module traced into dir, exports it to
// ONNX and compares ONNX Runtime's outputs with PyTorch's.
func compareQuantizedORT(t *testing.T, dir string, rtol, atol float64) {
	t.Helper()
	g, _, err := readTraced(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	compareTracedORT(t, g, dir, formats.WriteOptions{}, rtol, atol)
}
