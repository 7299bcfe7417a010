package torchscript

import (
	"strings"
	"testing"
)

// TestTracedQuantizePerChannel checks torch.quantize_per_channel (qint8
// along the activations' channel axis, quint8 along a weight's first axis,
// scales in double precision that float32 does not hold, inputs at exact
// half steps and beyond the range) through int_repr and dequantize bit
// for bit against PyTorch, and the same in ONNX Runtime.
func TestTracedQuantizePerChannel(t *testing.T) {
	traceAndCompareORT(t, `
import numpy as np
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 3, 2) * 0.3)
        self.register_buffer("ws", torch.tensor([0.0031, 0.0023, 0.00214854861, 0.0047], dtype=torch.float64))
    def forward(self, x):
        s = torch.tensor([0.0213, 0.05, 0.00214854861, 0.1, 0.0371], dtype=torch.float64)
        z = torch.tensor([0, -5, 7, 3, -128])
        q = torch.quantize_per_channel(x, s, z, 1, torch.qint8)
        qw = torch.quantize_per_channel(self.w, self.ws, torch.tensor([128, 120, 3, 255]), 0, torch.quint8)
        return q.int_repr(), q.dequantize(), qw.int_repr(), torch.dequantize(qw)
torch.manual_seed(0)
s = np.array([0.0213, 0.05, 0.00214854861, 0.1, 0.0371]).reshape(1, 5, 1)
k = np.arange(-140, 140).reshape(1, 1, -1)
half = ((k + 0.5) * s).astype(np.float32)
x = np.concatenate([half, np.nextafter(half, np.float32(np.inf)), np.nextafter(half, -np.float32(np.inf))], axis=2)
x = torch.from_numpy(np.concatenate([x, x * 7], axis=0).reshape(2, 5, 28, 30))
xs = [x]
`, 0, 0)
}

// TestQuantizePerChannelRefusals: a per-channel quantized tensor used by
// another operator, and float zero points, are refused by name.
func TestQuantizePerChannelRefusals(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"torch.quantize_per_channel(x, torch.tensor([0.1, 0.2], dtype=torch.float64), torch.tensor([0, 1]), 1, torch.quint8)[:, 1:].dequantize()", "per-channel quantized Tensor"},
		{"torch.quantize_per_channel(x, torch.tensor([0.1, 0.2], dtype=torch.float64), torch.tensor([0.5, 1.0]), 1, torch.quint8).dequantize()", "float zero points"},
	} {
		dir, _ := trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return `+c.body+`
xs = [torch.randn(3, 2)]
`)
		_, _, err := readTraced(t, dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "quantize_per_channel") && !strings.Contains(err.Error(), "slice") {
			t.Errorf("%s: want an error naming %q, got %v", c.body, c.want, err)
		}
	}
}
