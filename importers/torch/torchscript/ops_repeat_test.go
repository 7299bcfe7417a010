package torchscript

import "testing"

// TestTracedUnbindRepeatInterleave reads what MViT traces to: q, k and v
// unbound from one tensor (dims 0 and negative), and repeat_interleave
// with an int along a dim, over the flattened input, with a one-element
// tensor and with a constant tensor of one count per entry, and
// tensor_split by indices (past the end too) and by sections; each checked
// against PyTorch.
func TestTracedUnbindRepeatInterleave(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("counts", torch.tensor([2, 0, 1, 3]))
        self.register_buffer("one", torch.tensor([2]))
    def forward(self, x):
        q, k, v = x.reshape(3, 2, 4, 5).unbind(0)
        a, b = torch.unbind(x[:2], dim=-3)
        r1 = torch.repeat_interleave(q, 2, dim=1)
        r2 = k.repeat_interleave(3)
        r3 = v.repeat_interleave(self.one, dim=-1)
        r4 = q.repeat_interleave(self.counts, dim=1)
        c, rest = torch.tensor_split(x, [1], 2)
        s = x.tensor_split(3, dim=1)
        e = torch.tensor_split(x, (0, 2, 9), -1)
        return (q, k, v, a * b, r1, r2, r3, r4, c, rest) + s + e
torch.manual_seed(0)
xs = [torch.randn(6, 4, 5)]
`)
}

// TestTracedRepeatInterleaveRunTimeCounts: counts computed from the
// input give an output whose size is known only at run time; each output
// position gathers the entry whose run covers it.
func TestTracedRepeatInterleaveRunTimeCounts(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def forward(self, x):
        r = (x[:, 0] > 0).long() * 2 + (x[:, 1] > 0).long()
        return (x.repeat_interleave(r, dim=0), x.repeat_interleave(r[:1] + 1, dim=1), torch.repeat_interleave(r),
                x.repeat_interleave(r[1:2] + 1))
torch.manual_seed(0)
xs = [torch.randn(5, 2)]
`)
}

// TestTracedLargeSliceWrite reads MViT v2's relative position bias: an
// in-place add into attn[:, :, 1:, 1:] too large for one index per
// element, written back as Slices and Concats, and a box cut on three
// axes; each checked against PyTorch.
func TestTracedLargeSliceWrite(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def forward(self, attn, bias):
        attn = attn * 1
        attn[:, :, 1:, 1:].add_(bias)
        y = attn * 2
        y[:, :, 3:-2, 5:9] += 1
        return attn, y
torch.manual_seed(0)
xs = [torch.randn(1, 2, 1030, 1030), torch.randn(1, 2, 1029, 1029)]
`)
}
