package torchscript

import "testing"

// TestTracedPrivateOps checks the underscore aten operators and the other
// registry stragglers beyond their registry cases: unfold over a middle
// axis with step > 1 and a negative dim, conv_tbc with padding, where with
// one argument on 1-D and 3-D conditions, a reshape target computed at run
// time, _dim_arange of the last axis, shape tensors used in arithmetic,
// _unique without inverse, and native_dropout with p = 0 in training.
func TestTracedPrivateOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.w = torch.nn.Parameter(torch.randn(3, 4, 5), requires_grad=False)
        self.b = torch.nn.Parameter(torch.randn(5), requires_grad=False)
    def forward(self, x, y):
        u1 = x.unfold(1, 3, 2)
        u2 = x.unfold(-1, 2, 3)
        c = torch.conv_tbc(y, self.w, self.b, 1)
        w1 = torch.where(y[:, 0, 0] > 0)
        w3 = torch.where(x > 0.5)
        s = (torch.tensor([7.0, 12.0]) * y.abs().sum().clamp(1, 1)).long()
        r = torch._reshape_from_tensor(x, s)
        a = torch._dim_arange(x, -1)
        st = torch._shape_as_tensor(x) * 2
        u, inv = torch._unique(torch.round(x * 2), True, False)
        d, m = torch.native_dropout(y, 0.0, True)
        h = torch._cast_Half(x).float() - x
        l = torch._log_softmax(x, -1, False)
        p = torch.ops.aten._pad_circular(y, [1, 2])
        return u1, u2, c, w1, w3, r, a, st, u, inv, d, m, h, l, p
torch.manual_seed(0)
xs = [torch.randn(2, 7, 6), torch.randn(6, 2, 4)]
`)
}
