package torchscript

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// convertModule is traced by PyTorch 1.13: every cast, comparison,
// where, expand and repeat form the importer maps.
const convertModule = `
import sys, numpy as np, torch
class M(torch.nn.Module):
    def forward(self, x, y):
        a = (x * 4).to(torch.int32)
        b = torch.where(x > y, x, y)
        c = x.expand(2, -1, 4)
        d = x.repeat(2, 1, 3, 1)
        e = torch.eq(x, y)
        f = torch.lt(x, 0.25)
        g = torch.le(x, y)
        h = torch.ge(x, y)
        i = (x * 300).half().to(torch.int16)
        j = x.expand_as(y.expand(3, 3, 4))
        k = (x > 0).float()
        return a, b, c, d, e, f, g, h, i, j, k
torch.manual_seed(0)
x = torch.randn(1, 3, 4)
y = torch.randn(1, 3, 4)
y[0, 0] = x[0, 0]
m = torch.jit.trace(M(), (x, y))
m.save(sys.argv[1] + "/m.pt")
np.save(sys.argv[1] + "/x.npy", x.numpy())
np.save(sys.argv[1] + "/y.npy", y.numpy())
for k, o in enumerate(m(x, y)):
    np.save(sys.argv[1] + "/y%d.npy" % k, o.numpy())
`

func TestTracedConvertOps(t *testing.T) {
	py := testfix.Torch(t, "numpy")
	dir := t.TempDir()
	script := filepath.Join(dir, "trace.py")
	if err := os.WriteFile(script, []byte(convertModule), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, dir).CombinedOutput(); err != nil {
		t.Fatalf("tracing: %v\n%s", err, out)
	}
	x, err := tensorfile.Load(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	y, err := tensorfile.Load(filepath.Join(dir, "y.npy"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(filepath.Join(dir, "m.pt"), formats.ReadOptions{InputShapes: map[string][]int64{"#0": x.Shape, "#1": y.Shape}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	x.Name, y.Name = g.Inputs[0].Name, g.Inputs[1].Name
	outs, err := interp.Run(g, map[string]*canon.Tensor{x.Name: x, y.Name: y})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Outputs) != 11 {
		t.Fatalf("%d outputs, want 11", len(g.Outputs))
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
		res, err := compare.Tensors(got, want, 1e-6, 1e-6)
		if err != nil || !res.OK {
			t.Errorf("output %d differs from PyTorch: %+v %v", k, res, err)
		}
	}
}
