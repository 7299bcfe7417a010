package torchscript

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// fakeQuantModule is traced by PyTorch 1.13: two fake quantizations (uint8
// range with a zero point, int8 range), with inputs on and next to the
// rounding boundaries, outside the range and exactly at half steps.
const fakeQuantModule = `
import sys, numpy as np, torch
class M(torch.nn.Module):
    def forward(self, x):
        a = torch.fake_quantize_per_tensor_affine(x, 0.0213, 3, 0, 255)
        b = torch.fake_quantize_per_tensor_affine(x * 7.0, 0.1, 0, -128, 127)
        return a + b
torch.manual_seed(0)
x = torch.randn(2, 3, 17, 19) * 3
x.view(-1)[:40] = torch.arange(40, dtype=torch.float32) * 0.0213 * 0.5
t = torch.jit.trace(M(), (x,))
t.save(sys.argv[1] + "/m.pt")
np.save(sys.argv[1] + "/x.npy", x.numpy())
np.save(sys.argv[1] + "/y.npy", t(x).numpy())
`

// TestTracedFakeQuantize: fake_quantize_per_tensor_affine is read as the
// float ops PyTorch computes, and gives PyTorch's values bit for bit.
func TestTracedFakeQuantize(t *testing.T) {
	py := testfix.Torch(t, "numpy")
	dir := t.TempDir()
	script := filepath.Join(dir, "trace.py")
	if err := os.WriteFile(script, []byte(fakeQuantModule), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, dir).CombinedOutput(); err != nil {
		t.Fatalf("tracing: %v\n%s", err, out)
	}
	x, err := tensorfile.Load(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join(dir, "y.npy"))
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
	got := outs[g.Outputs[0].Name]
	if string(got.Data) != string(want.Data) {
		gv, _ := got.Float64s()
		wv, _ := want.Float64s()
		for i := range gv {
			if gv[i] != wv[i] {
				t.Fatalf("element %d is %g, PyTorch's %g (not bit-exact)", i, gv[i], wv[i])
			}
		}
		t.Fatalf("outputs differ: %s%v vs %s%v", got.DType, got.Shape, want.DType, want.Shape)
	}
}
