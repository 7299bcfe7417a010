package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// convertModule is traced by PyTorch 1.13: every cast, comparison,
// where, expand and repeat form the importer maps.
const convertModule = `
import sys, numpy as np, torch
class M(torch.nn.Module):
    def forward(self, x, y):
        a = (x * 4).to(torch.int32)
        b = torch.where(x > y, x, y)
        c = x.expand(2, -1, 4)
        d = x.repeat(2, 1, 3, 1)
        e = torch.eq(x, y)
        f = torch.lt(x, 0.25)
        g = torch.le(x, y)
        h = torch.ge(x, y)
        i = (x * 300).half().to(torch.int16)
        j = x.expand_as(y.expand(3, 3, 4))
        k = (x > 0).float()
        return a, b, c, d, e, f, g, h, i, j, k
torch.manual_seed(0)
x = torch.randn(1, 3, 4)
y = torch.randn(1, 3, 4)
y[0, 0] = x[0, 0]
xs = [x, y]
`

func TestTracedConvertOps(t *testing.T) {
	m := torchtrace.Trace(t, convertModule)
	if len(m.Outputs) != 11 {
		t.Fatalf("PyTorch gives %d outputs, want 11", len(m.Outputs))
	}
	m.Compare(t, ReadFile, 1e-6, 1e-6)
}
