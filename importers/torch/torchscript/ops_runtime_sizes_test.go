package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/formats"
)

// TestRunTimeSizedDetectionOps imports the operations torchvision's R-CNN
// heads apply to tensors with one row per detection (a count only a run
// tells) and checks them against PyTorch in the interpreter and in ONNX
// Runtime: indexing with two run-time index tensors, a column written into
// zeros_like, zeros of a run-time and known sizes read by a convolution,
// and a split into the one piece of the whole.
func TestRunTimeSizedDetectionOps(t *testing.T) {
	const src = `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 2, 2)
    def forward(self, x, boxes, scores):
        keep = torch.where(scores > 0.5)[0]
        b = boxes[keep]
        n = b.size(0)
        labels = keep % 3
        picked = x[keep][torch.arange(n), labels]
        exp = torch.zeros_like(b)
        exp[:, 0] = b[:, 2] * 0.5
        exp[:, 3] = b[:, 1] - 1.0
        pooled = torch.zeros([n, 3, 3, 3])
        pooled = pooled + picked.sum()
        y = self.conv(pooled)
        parts = torch.split(b, [n])
        return picked, exp, y.flatten(1), parts[0] * 2.0
torch.manual_seed(0)
args = [torch.randn(6, 3, 4), torch.rand(6, 4) * 10, torch.tensor([0.9, 0.1, 0.7, 0.6, 0.2, 0.8])]
`
	m := scriptedContainers(t, src)
	g, err := m.Import(ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	m.CompareGraph(t, g, 1e-5, 1e-6)
	m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6)
}
