package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// TestTracedDynamicLinear checks dynamic quantized linear layers
// (torch.ao.quantization.quantize_dynamic on the onednn engine: per-tensor
// and per-channel weights, with and without bias, fused ReLU, a 3-D input)
// bit for bit against PyTorch 1.13, on inputs placed at exact half steps
// of the chosen scale, an all-zero input (scale 0.1), a range small enough
// for the 6.1e-5 scale cutoff, and an all-negative one. ONNX Runtime runs
// the same graph within one float32 rounding of the last steps (its
// elementwise kernels round the final multiply differently in the last bit).
func TestTracedDynamicLinear(t *testing.T) {
	m := torchtrace.Trace(t, dynamicLinearScript)
	g := m.Compare(t, ReadFile, 0, 0)
	if t.Failed() {
		return
	}
	m.CompareORT(t, g, formats.WriteOptions{}, 2.4e-7, 0)
}

const dynamicLinearScript = `
import numpy as np
import torch.ao.quantization as tq
import torch.ao.nn.intrinsic as nni
torch.backends.quantized.engine = "onednn"
class F(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(24, 16)
        self.b = torch.nn.Linear(16, 8, bias=False)
        self.c = nni.LinearReLU(torch.nn.Linear(24, 12), torch.nn.ReLU())
        self.d = torch.nn.Linear(24, 10)
    def forward(self, x, z, t, n):
        return self.b(self.a(x)), self.c(x), self.d(z), self.a(t), self.d(n)
spec = {"a": tq.default_dynamic_qconfig, "b": tq.default_dynamic_qconfig, "c": tq.default_dynamic_qconfig, "d": tq.per_channel_dynamic_qconfig}
def M():
    torch.manual_seed(0)
    return tq.quantize_dynamic(F().eval(), spec)
rng = np.random.default_rng(0)
lo, hi = np.float32(-2.4094173908233643), np.float32(3.8890573978424072)  # float(1/s) differs from 1/float(s) here
s = (float(hi) - float(lo)) / 127
k = rng.integers(-45, 75, size=(2, 5, 24))
x = ((k + 0.5) * s).astype(np.float32)
x[0, 0, :12] = np.nextafter(x[0, 0, :12], np.float32(np.inf))
x[0, 0, 0], x[0, 0, 1] = lo, hi
t = (rng.standard_normal((3, 24)) * 1e-3).astype(np.float32)
n = -np.abs(rng.standard_normal((3, 24))).astype(np.float32)
xs = [torch.from_numpy(x), torch.zeros(4, 24), torch.from_numpy(t), torch.from_numpy(n)]
`
