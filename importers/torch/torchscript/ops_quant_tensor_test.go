package torchscript

import (
	"strings"
	"testing"
)

// TestTracedQuantizeTensor checks quantize_per_tensor (quint8 and qint8,
// with inputs at exact half steps, where rounding is half to even, and
// beyond the range, which clamps) through int_repr bit for bit, dequantize
// over more than one 32-entry vector run, and fake_quantize_per_channel_affine
// along a middle axis against PyTorch, and the same in ONNX Runtime.
func TestTracedQuantizeTensor(t *testing.T) {
	traceAndCompareORT(t, `
class M(torch.nn.Module):
    def forward(self, x):
        qu = torch.quantize_per_tensor(x, 0.05, 10, torch.quint8)
        qs = torch.quantize_per_tensor(x * 3, 0.0213, -3, torch.qint8)
        scale = torch.tensor([0.05, 0.0213, 0.1])
        zp = torch.tensor([0, -5, 7], dtype=torch.int32)
        f = torch.fake_quantize_per_channel_affine(x, scale, zp, 1, -128, 127)
        return qu.int_repr(), qs.int_repr(), qu.dequantize(), torch.dequantize(qs), f
torch.manual_seed(0)
x = torch.randn(2, 3, 7, 5) * 4
x.view(-1)[:60] = (torch.arange(60, dtype=torch.float32) - 30) * 0.025
xs = [x]
`, 1e-6, 1e-7)
}

// TestQuantizedTensorOtherUse: a quantized tensor used by an operator
// without a quantized reading is refused by name.
func TestQuantizedTensorOtherUse(t *testing.T) {
	dir, _ := trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return torch.sigmoid(torch.quantize_per_tensor(x, 0.05, 10, torch.quint8)).dequantize()
xs = [torch.randn(2, 3)]
`)
	_, _, err := readTraced(t, dir)
	if err == nil || !strings.Contains(err.Error(), "quantized Tensor") {
		t.Fatalf("want an error naming the quantized tensor, got %v", err)
	}
}
