package torchscript

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// runTimeFloatCases runs the scripted module M on every input of cases
// (one input each) and saves each in DIR/caseN as torchtrace.Load reads it.
const runTimeFloatCases = `
m = torch.jit.script(M())
m.save(sys.argv[1] + "/m.pt")
m = torch.jit.load(sys.argv[1] + "/m.pt")
for c, x in enumerate(cases):
    d = sys.argv[1] + "/case%d" % c
    os.makedirs(d)
    np.save(d + "/x0.npy", x.numpy())
    with torch.no_grad():
        outs = m(x)
    for k, o in enumerate(outs):
        np.save(d + "/y%d.npy" % k, np.require(o.numpy(), requirements="C"))
`

// checkRunTimeSizeCases imports m's scripted module once, its input of the
// given shape with axes h and h+1 symbolic (H and W), and checks every case
// PyTorch wrote (runTimeFloatCases) in the interpreter and in ONNX Runtime
// (opset 18) within rtol and atol.
func checkRunTimeSizeCases(t *testing.T, m *torchtrace.Module, shape []int64, h int, rtol, atol float64) {
	t.Helper()
	g, err := ReadFile(m.Path(), formats.ReadOptions{
		InputShapes: map[string][]int64{"#0": shape},
		DimNames:    map[string]map[int]string{"#0": {h: "H", h + 1: "W"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for c := 0; ; c++ {
		dir := filepath.Join(m.Dir, fmt.Sprintf("case%d", c))
		if _, err := os.Stat(dir); err != nil {
			if c == 0 {
				t.Fatal("PyTorch wrote no cases")
			}
			break
		}
		cm := torchtrace.Load(t, dir)
		t.Run(fmt.Sprintf("%v", cm.Inputs[0].Shape), func(t *testing.T) {
			cm.CompareGraph(t, g, rtol, atol)
			cm.CompareORT(t, g, formats.WriteOptions{Opset: 18}, rtol, atol)
		})
	}
}

// TestRunTimeFloats imports, once with the image size symbolic, a scripted
// module that computes a Python float from the size at run time (as
// torchvision's GeneralizedRCNNTransform does: float(scale.item()) of
// min_size / size), resizes by it with recompute_scale_factor, and derives
// ints and floats from it (math.floor, math.ceil, int, min, comparisons).
// It is checked against PyTorch 1.13 on several sizes in the interpreter
// and in ONNX Runtime. At 31x31, floor(31 · 1.2903225f) is 39 in the
// double arithmetic PyTorch does and 40 in float32; at 25x5 the float32
// scale 1.5999999 gives 7 where 40/25·5 is 8.
func TestRunTimeFloats(t *testing.T) {
	m := torchtrace.Run(t, `import sys, os, math, numpy as np, torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        h = x.size(2)
        w = x.size(3)
        s = torch.reciprocal(torch.tensor(h).to(torch.float32)) * 40.0
        scale = float(s.item())
        y = F.interpolate(x, scale_factor=scale, mode="bilinear", recompute_scale_factor=True, align_corners=False)
        n = int(math.floor(float(w) * scale))
        k = int(math.ceil(float(h) / 7.0) * 2.5)
        r = min(scale, 2.0) - 0.25 * scale + w / h
        if scale > 1.5:
            z = x * scale
        else:
            z = x - scale
        return y, torch.tensor([float(n), float(k), r]), z, torch.tensor([n, k, y.size(3)])
gen = torch.Generator().manual_seed(3)
cases = [torch.rand(1, 2, h, w, generator=gen) for h, w in [(31, 31), (25, 5), (24, 36), (10, 17), (47, 13)]]
`+runTimeFloatCases)
	checkRunTimeSizeCases(t, m, []int64{1, 2, -1, -1}, 2, 1e-5, 1e-6)
}

// TestRunTimeFloatCarried: a Python float carried through a loop whose trip
// count only a run tells, and through a branch on a run-time bool, is a
// float64 loop-carried value; checked against PyTorch in the interpreter
// and in ONNX Runtime.
func TestRunTimeFloatCarried(t *testing.T) {
	m := scripted(t, `
class M(torch.nn.Module):
    def forward(self, x):
        s = 0.5
        for i in range(x.size(0)):
            s = s * 2.0 + 0.1
        if bool(x.sum() > 0):
            s = s / 3.0
        return x * s
xs = [torch.randn(5, 2)]`)
	g, err := ReadFile(m.Path(), formats.ReadOptions{InputShapes: map[string][]int64{"#0": {-1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if countKind(g, "Loop") != 1 {
		t.Errorf("want the float carried by one Loop, got %d", countKind(g, "Loop"))
	}
	m.CompareGraph(t, g, 1e-6, 0)
	m.CompareORT(t, g, formats.WriteOptions{}, 1e-6, 0)
}

// TestRunTimeSizeOps imports, once with the image size symbolic, a scripted
// module doing what torchvision's detection transform, FPN, anchor
// generator and postprocessing do with sizes known only at run time:
// copy_ into a zero batch through slices that end at run time, nearest
// upsampling to run-time sizes, int floor division, arange and meshgrid
// of run-time lengths, fill_ with a run-time int, split by run-time sizes,
// a run-time-length boolean mask and clamp to a run-time bound. It is
// checked against PyTorch 1.13 on several sizes in the interpreter and in
// ONNX Runtime.
func TestRunTimeSizeOps(t *testing.T) {
	m := torchtrace.Run(t, `import sys, os, math, numpy as np, torch
import torch.nn.functional as F
from typing import List
class M(torch.nn.Module):
    def forward(self, x):
        c, h, w = x.shape[0], x.shape[1], x.shape[2]
        H = int(math.ceil(float(h) / 8.0) * 8.0)
        W = int(math.ceil(float(w) / 8.0) * 8.0)
        b = x.new_full([1, c, H, W], 0)
        b[0][:c, :h, :w].copy_(x)
        small = F.avg_pool2d(b, 2)
        up = F.interpolate(small, size=[h, w], mode="nearest")
        upx = F.interpolate(small, size=[h + 3, w // 3], mode="nearest-exact")
        sy = torch.arange(0, H // 4, dtype=torch.int32) * 4
        sx = torch.arange(0, W // 4, dtype=torch.int32) * 4
        g = torch.meshgrid([sy, sx], indexing="ij")
        s = torch.empty((), dtype=torch.int64).fill_(h // 3)
        flat = up.flatten()
        n = h * w
        parts = torch.split(flat, [n, c * n - n])
        kept = flat[flat > 0.5]
        cl = torch.clamp(x, 0.2, float(w) / 40.0)
        ci = torch.clamp(sx, 0, w)
        return b, up, upx, g[0], g[1], s, parts[1], kept, cl, ci
gen = torch.Generator().manual_seed(4)
cases = [torch.rand(3, h, w, generator=gen) for h, w in [(31, 31), (20, 45), (17, 9), (8, 16)]]
`+runTimeFloatCases)
	checkRunTimeSizeCases(t, m, []int64{3, -1, -1}, 1, 1e-6, 1e-7)
}

// TestRunTimeFloatRefusals: what a run-time float cannot express exactly
// is refused naming the operator: interpolate keeping a run-time scale
// factor (torch maps coordinates by the double 1/scale, ONNX Resize's
// scales are float32), and a float arange bound known only at run time.
func TestRunTimeFloatRefusals(t *testing.T) {
	open := formats.ReadOptions{InputShapes: map[string][]int64{"#0": {1, 1, -1, -1}}}
	for _, c := range []struct{ name, src, want string }{
		{"interpolate-scale-kept", `
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        s = float((torch.reciprocal(torch.tensor(x.size(2)).float()) * 40.0).item())
        return F.interpolate(x, scale_factor=s, mode="bilinear", align_corners=False)
xs = [torch.randn(1, 1, 6, 6)]`, "upsample_bilinear2d"},
		{"float-arange", `
class M(torch.nn.Module):
    def forward(self, x):
        return torch.arange(0.0, float(x.size(2)) / 3.0)
xs = [torch.randn(1, 1, 6, 6)]`, "torch.arange"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := scripted(t, c.src)
			g, err := ReadFile(m.Path(), open)
			if err == nil {
				g.Close()
				t.Fatalf("imported; want an error naming %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "run time") {
				t.Fatalf("error %q does not name %q and the run-time value", err, c.want)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// TestFloatOfRunTimeTensor: float() of a tensor known only at run time is
// a run-time float (the tensor's value widened to double), and a float32
// tensor times it computes as torch does.
func TestFloatOfRunTimeTensor(t *testing.T) {
	m := scripted(t, `
class M(torch.nn.Module):
    def forward(self, x):
        s = float(x.max())
        return x * s, x / (s + 1.0)
xs = [torch.rand(4, 3)]`)
	g, err := ReadFile(m.Path(), formats.ReadOptions{InputShapes: map[string][]int64{"#0": {-1, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	m.CompareGraph(t, g, 1e-6, 0)
	m.CompareORT(t, g, formats.WriteOptions{}, 1e-6, 0)
}

// TestNearestToSizesPicks: nearest upsampling to sizes known at import
// where Resize's out/in mapping picks a neighbour of torch's (14 to 16:
// output 8 reads input 7 in torch, 6 in ONNX Runtime's Resize) is written
// as torch's picks; checked in the interpreter and in ONNX Runtime.
func TestNearestToSizesPicks(t *testing.T) {
	m := torchtrace.Trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return (F.interpolate(x, size=[16, 16], mode="nearest"),
                F.interpolate(x, size=[74, 5], mode="nearest-exact"),
                F.interpolate(x, size=[28, 28], mode="nearest"))
xs = [torch.arange(2 * 14 * 14, dtype=torch.float32).reshape(1, 2, 14, 14)]`)
	g := m.Compare(t, ReadFile, 0, 0)
	m.CompareORT(t, g, formats.WriteOptions{}, 0, 0)
}
