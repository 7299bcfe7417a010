package torchscript

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// resampleModule is traced by PyTorch 1.13: the upsample_* calls
// F.interpolate makes (both overloads: sizes and scale factors), adaptive
// pooling with uneven windows, grid_sampler, affine_grid_generator and
// col2im.
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
        v = x.mean(2)
        return (
            F.interpolate(x, scale_factor=2, mode="nearest"),
            F.interpolate(x, size=(5, 4), mode="nearest"),
            F.interpolate(x, size=(11, 13), mode="bilinear", align_corners=False),
            F.interpolate(x, size=(11, 13), mode="bilinear", align_corners=True),
            F.interpolate(x, scale_factor=(1.5, 0.5), mode="bilinear", align_corners=False),
            F.interpolate(x, size=(10, 6), mode="bicubic", align_corners=False),
            F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=True),
            F.interpolate(x, size=(4, 12), mode="nearest-exact"),
            F.interpolate(v, size=17, mode="linear"),
            F.interpolate(x.unsqueeze(2), size=(3, 5, 4), mode="trilinear"),
            F.adaptive_avg_pool2d(x, (3, 4)),
            F.adaptive_max_pool2d(x, (3, 4)),
            F.adaptive_avg_pool1d(v, 4),
            F.adaptive_avg_pool3d(x.unsqueeze(1), (2, 3, 4)),
            F.adaptive_max_pool2d(x, (7, 3)),
            F.grid_sample(x, self.grid, mode="bilinear", padding_mode="zeros", align_corners=False),
            F.grid_sample(x, self.grid, mode="bicubic", padding_mode="reflection", align_corners=True),
            F.grid_sample(x, self.grid, mode="nearest", padding_mode="reflection", align_corners=False),
            F.affine_grid(self.theta, [1, 3, 5, 6], align_corners=False),
            F.fold(self.cols, (5, 6), (2, 3), stride=(2, 1), dilation=(1, 2), padding=1),
            F.interpolate(x, size=(4, 5), mode="bilinear", antialias=True),
            F.interpolate(x, size=(3, 4), mode="bicubic", antialias=True),
        )
torch.manual_seed(0)
x = torch.randn(1, 3, 7, 9)
m = torch.jit.trace(M(), x)
m.save(sys.argv[1] + "/m.pt")
np.save(sys.argv[1] + "/x.npy", x.numpy())
for k, o in enumerate(m(x)):
    np.save(sys.argv[1] + "/y%d.npy" % k, o.numpy())
`

func TestTracedResampleOps(t *testing.T) {
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import torch, numpy").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import torch: %v %s", py, err, strings.TrimSpace(string(out)))
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "trace.py")
	if err := os.WriteFile(script, []byte(resampleModule), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, dir).CombinedOutput(); err != nil {
		t.Fatalf("tracing: %v\n%s", err, out)
	}
	x, err := tensorfile.Load(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(filepath.Join(dir, "m.pt"), formats.ReadOptions{InputShapes: map[string][]int64{"#0": x.Shape}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	x.Name = g.Inputs[0].Name
	outs, err := interp.Run(g, map[string]*canon.Tensor{x.Name: x})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Outputs) != 22 {
		t.Fatalf("%d outputs, want 22", len(g.Outputs))
	}
	for k, o := range g.Outputs {
		want, err := tensorfile.Load(filepath.Join(dir, fmt.Sprintf("y%d.npy", k)))
		if err != nil {
			t.Fatal(err)
		}
		got := outs[o.Name]
		if got.DType != want.DType || fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
			t.Errorf("output %d is %s%v, PyTorch's %s%v", k, got.DType, got.Shape, want.DType, want.Shape)
			continue
		}
		res, err := compare.Tensors(got, want, 1e-4, 1e-5)
		if err != nil || !res.OK {
			t.Errorf("output %d differs from PyTorch: %+v %v", k, res, err)
		}
	}
}
