package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// mathModule is traced by PyTorch 1.13: every math call the importer
// maps, on inputs inside each function's domain, with exact halves for
// round and NaNs and infinities for the float tests.
const mathModule = `
import sys, numpy as np, torch
class M(torch.nn.Module):
    def forward(self, x, p, u, s):
        outs = [torch.abs(x), -x, torch.negative(x), torch.sign(x), torch.exp(x), torch.log(p), torch.sqrt(p),
                torch.reciprocal(p), torch.floor(x), torch.ceil(x), torch.round(x), torch.round(x, decimals=1),
                torch.round(x * 100, decimals=-1), torch.erf(x), torch.special.erf(x), torch.sin(x), torch.cos(x),
                torch.tan(u), torch.arcsin(u), torch.acos(u), torch.atan(x), torch.sinh(x), torch.cosh(x),
                torch.asinh(x), torch.acosh(p + 1), torch.atanh(u), torch.isnan(s), torch.isinf(s),
                torch.isposinf(s), torch.isneginf(s)]
        y = x * 2
        y.abs_()
        outs.append(y)
        return tuple(outs)
torch.manual_seed(0)
x = torch.cat([torch.randn(20) * 3, torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 0.25, 0.35, -0.45])])
p = torch.rand(28) * 5 + 0.01
u = torch.rand(28) * 1.8 - 0.9
s = torch.tensor([float("inf"), float("-inf"), float("nan"), 0.0, -1.0, 3e38, 7.0])
xs = [x, p, u, s]
`

func TestTracedMathOps(t *testing.T) {
	m := torchtrace.Trace(t, mathModule)
	if len(m.Outputs) != 31 {
		t.Fatalf("PyTorch gives %d outputs, want 31", len(m.Outputs))
	}
	m.Compare(t, ReadFile, 1e-5, 1e-6)
}
