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

// indexingModule is traced by PyTorch 1.13: every indexing call the
// importer maps, with indices and masks held as buffers.
const indexingModule = `
import sys, numpy as np, torch, torch.nn.functional as F
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([[0, 2, 1], [2, 0, 0], [1, 1, 2]]))
        self.register_buffer("cls", torch.tensor([[0, 3], [2, 1]]))
        self.register_buffer("mask", torch.tensor([[True, False, True], [False, False, True], [True, True, False]]))
    def forward(self, x):
        a = torch.gather(x, 1, self.idx)
        b = torch.gather(x, -2, self.idx)
        c = torch.triu(x, 1) + torch.tril(x, diagonal=-1)
        d = x.scatter(0, self.idx, a)
        e = x.scatter_reduce(1, self.idx, a * 3, reduce="amax")
        f = x.scatter_reduce(1, self.idx, a, reduce="prod")
        g = torch.scatter_add(x, 0, self.idx, a)
        h = x.scatter(1, self.idx, 2.5)
        i = F.one_hot(self.cls, 5)
        k = F.one_hot(self.cls)
        j = torch.masked_select(x, self.mask)
        return a, b, c, d, e, f, g, h, i, j, k
torch.manual_seed(0)
x = torch.randn(3, 3)
m = torch.jit.trace(M(), x)
m.save(sys.argv[1] + "/m.pt")
np.save(sys.argv[1] + "/x.npy", x.numpy())
for k, o in enumerate(m(x)):
    np.save(sys.argv[1] + "/y%d.npy" % k, o.numpy())
`

func TestTracedIndexingOps(t *testing.T) {
	py := testfix.Torch(t, "numpy")
	dir := t.TempDir()
	script := filepath.Join(dir, "trace.py")
	if err := os.WriteFile(script, []byte(indexingModule), 0o644); err != nil {
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
