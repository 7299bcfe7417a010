package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// indexingModule is traced by PyTorch 1.13: every indexing call the
// importer maps, with indices and masks held as buffers.
const indexingModule = `
import sys, numpy as np, torch, torch.nn.functional as F
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([[0, 2, 1], [2, 0, 0], [1, 1, 2]]))
        self.register_buffer("cls", torch.tensor([[0, 3], [2, 1]]))
        self.register_buffer("mask", torch.tensor([[True, False, True], [False, False, True], [True, True, False]]))
    def forward(self, x):
        a = torch.gather(x, 1, self.idx)
        b = torch.gather(x, -2, self.idx)
        c = torch.triu(x, 1) + torch.tril(x, diagonal=-1)
        d = x.scatter(0, self.idx, a)
        e = x.scatter_reduce(1, self.idx, a * 3, reduce="amax")
        f = x.scatter_reduce(1, self.idx, a, reduce="prod")
        g = torch.scatter_add(x, 0, self.idx, a)
        h = x.scatter(1, self.idx, 2.5)
        i = F.one_hot(self.cls, 5)
        k = F.one_hot(self.cls)
        j = torch.masked_select(x, self.mask)
        return a, b, c, d, e, f, g, h, i, j, k
torch.manual_seed(0)
x = torch.randn(3, 3)
xs = [x]
`

func TestTracedIndexingOps(t *testing.T) {
	m := torchtrace.Trace(t, indexingModule)
	if len(m.Outputs) != 11 {
		t.Fatalf("PyTorch gives %d outputs, want 11", len(m.Outputs))
	}
	m.Compare(t, ReadFile, 1e-6, 1e-6)
}
