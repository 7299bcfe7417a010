package torchscript

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// TestListAndTupleInputs traces (with PyTorch 1.13) a module whose forward
// takes a list and a tuple of tensors and returns a tensor and a list: the
// elements become inputs xs_0, xs_1, t_0, t_1 and the results flatten in
// order.
func TestListAndTupleInputs(t *testing.T) {
	m := torchtrace.Run(t, `
import sys, warnings, numpy as np, torch
warnings.simplefilter("ignore")
class M(torch.nn.Module):
    def forward(self, xs, t):
        return xs[0] + xs[1] * t[1], [xs[2] - 1, t[0].relu()]
torch.manual_seed(0)
xs = [torch.randn(2, 3) for _ in range(3)]
t = (torch.randn(2, 3), torch.randn(1, 3))
m = torch.jit.trace(M(), (xs, t), check_trace=False, strict=False)
m.save(sys.argv[1] + "/m.pt")
m = torch.jit.load(sys.argv[1] + "/m.pt")
for k, x in enumerate(xs + list(t)):
    np.save(sys.argv[1] + "/x%d.npy" % k, x.numpy())
a, (b, c) = m(xs, t)
for k, o in enumerate([a, b, c]):
    np.save(sys.argv[1] + "/y%d.npy" % k, o.numpy())
`)
	if len(m.Outputs) != 3 {
		t.Fatalf("PyTorch gives %d outputs, want 3", len(m.Outputs))
	}
	g := m.Compare(t, ReadFile, 1e-6, 1e-6)
	var names []string
	for _, in := range g.Inputs {
		names = append(names, in.Name)
	}
	if strings.Join(names, ",") != "xs_0,xs_1,xs_2,t_0,t_1" {
		t.Errorf("inputs %v", names)
	}
}
