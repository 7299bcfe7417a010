package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/formats"
)

// TestRunTimeViewWritesMixed writes through views that mix what
// torchvision's R-CNNs (a row at a run-time index, bounds read from a
// tensor) and batch_images (a slice ending at a run-time size) each need:
// row i of a loop with a run-time trip count, sliced to a run-time end and
// a static column range; a row picked at run time sliced from a negative
// static start and from a run-time start; checked against PyTorch in the
// interpreter and in ONNX Runtime.
func TestRunTimeViewWritesMixed(t *testing.T) {
	const src = `
class M(torch.nn.Module):
    def forward(self, x, boxes):
        keep = torch.where(boxes[:, 0] > 0.3)[0]
        out = torch.zeros((4, 6, 5))
        for i in range(len(keep)):
            k = int(boxes[keep[i], 1] * 7.0) - 1
            out[i][:k, 1:4] = x[i, :k, 1:4] + 1.0
        j = int(boxes[0, 2] * 4.0)
        out[j][-2:, int(boxes[1, 3] * 6.0) - 2:] = -1.0
        return out
torch.manual_seed(0)
args = [torch.rand(4, 6, 5), torch.rand(4, 4)]
`
	m := scriptedContainers(t, src)
	g, err := m.Import(ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	m.CompareGraph(t, g, 1e-6, 1e-6)
	m.CompareORT(t, g, formats.WriteOptions{}, 1e-6, 1e-6)
}
