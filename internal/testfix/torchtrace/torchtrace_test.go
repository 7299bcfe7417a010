package torchtrace_test

import (
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// A traced module with two inputs and a nested output is read back with
// its inputs, flattened outputs and file, and its import matches PyTorch
// in the interpreter and in ONNX Runtime.
func TestTraceAndCompare(t *testing.T) {
	m := torchtrace.Trace(t, `
class M(torch.nn.Module):
    def forward(self, x, y):
        return torch.relu(x), (x * y, F.softmax(y, -1))
torch.manual_seed(0)
xs = [torch.randn(2, 3), torch.randn(2, 3)]
`)
	if len(m.Inputs) != 2 || len(m.Outputs) != 3 {
		t.Fatalf("%d inputs and %d outputs, want 2 and 3", len(m.Inputs), len(m.Outputs))
	}
	g := m.Compare(t, torchscript.ReadFile, 1e-6, 1e-7)
	if len(g.Inputs) != 2 {
		t.Fatalf("import has %d inputs", len(g.Inputs))
	}
	m.CompareORT(t, g, formats.WriteOptions{}, 1e-6, 1e-7)
	again := torchtrace.Load(t, m.Dir)
	if again.Path() != m.Path() || len(again.Outputs) != 3 {
		t.Fatalf("Load(%s) = %+v", m.Dir, again)
	}
}
