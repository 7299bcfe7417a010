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

// mathModule is traced by PyTorch 1.13: every math call the importer
// maps, on inputs inside each function's domain, with exact halves for
// round and NaNs and infinities for the float tests.
const mathModule = `
import sys, numpy as np, torch
class M(torch.nn.Module):
    def forward(self, x, p, u, s):
        outs = [torch.abs(x), -x, torch.negative(x), torch.sign(x), torch.exp(x), torch.log(p), torch.sqrt(p),
                torch.reciprocal(p), torch.floor(x), torch.ceil(x), torch.round(x), torch.round(x, decimals=1),
                torch.round(x * 100, decimals=-1), torch.erf(x), torch.special.erf(x), torch.sin(x), torch.cos(x),
                torch.tan(u), torch.arcsin(u), torch.acos(u), torch.atan(x), torch.sinh(x), torch.cosh(x),
                torch.asinh(x), torch.acosh(p + 1), torch.atanh(u), torch.isnan(s), torch.isinf(s),
                torch.isposinf(s), torch.isneginf(s)]
        y = x * 2
        y.abs_()
        outs.append(y)
        return tuple(outs)
torch.manual_seed(0)
x = torch.cat([torch.randn(20) * 3, torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 0.25, 0.35, -0.45])])
p = torch.rand(28) * 5 + 0.01
u = torch.rand(28) * 1.8 - 0.9
s = torch.tensor([float("inf"), float("-inf"), float("nan"), 0.0, -1.0, 3e38, 7.0])
m = torch.jit.trace(M(), (x, p, u, s))
m.save(sys.argv[1] + "/m.pt")
for name, t in (("x", x), ("p", p), ("u", u), ("s", s)):
    np.save(sys.argv[1] + "/" + name + ".npy", t.numpy())
for k, o in enumerate(m(x, p, u, s)):
    np.save(sys.argv[1] + "/y%d.npy" % k, o.numpy())
`

func TestTracedMathOps(t *testing.T) {
	py := testfix.Torch(t, "numpy")
	dir := t.TempDir()
	script := filepath.Join(dir, "trace.py")
	if err := os.WriteFile(script, []byte(mathModule), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, dir).CombinedOutput(); err != nil {
		t.Fatalf("tracing: %v\n%s", err, out)
	}
	names := []string{"x", "p", "u", "s"}
	ins := make([]*canon.Tensor, len(names))
	shapes := map[string][]int64{}
	for i, n := range names {
		v, err := tensorfile.Load(filepath.Join(dir, n+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		ins[i] = v
		shapes[fmt.Sprintf("#%d", i)] = v.Shape
	}
	g, err := ReadFile(filepath.Join(dir, "m.pt"), formats.ReadOptions{InputShapes: shapes})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	feed := map[string]*canon.Tensor{}
	for i, v := range ins {
		v.Name = g.Inputs[i].Name
		feed[v.Name] = v
	}
	outs, err := interp.Run(g, feed)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Outputs) != 31 {
		t.Fatalf("%d outputs, want 31", len(g.Outputs))
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
		res, err := compare.Tensors(got, want, 1e-5, 1e-6)
		if err != nil || !res.OK {
			t.Errorf("output %d differs from PyTorch: %+v %v", k, res, err)
		}
	}
}
