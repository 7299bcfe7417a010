package torchscript

import "testing"

// TestTracedProjectedLSTM compares nn.LSTM with proj_size, unrolled, with
// PyTorch 1.13: two bidirectional batch-first layers from given states,
// and a single layer without biases from zero states.
func TestTracedProjectedLSTM(t *testing.T) {
	traceAndCompareORT(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.LSTM(6, 8, num_layers=2, batch_first=True, bidirectional=True, proj_size=4)
        self.b = torch.nn.LSTM(6, 5, bias=False, proj_size=3)
    def forward(self, x, h, c):
        y, (hn, cn) = self.a(x, (h, c))
        z, (hz, cz) = self.b(x.transpose(0, 1))
        return y, hn, cn, z, hz, cz
torch.manual_seed(0)
xs = [torch.randn(2, 5, 6), torch.randn(4, 2, 4), torch.randn(4, 2, 8)]
`, 1e-5, 1e-6)
}
