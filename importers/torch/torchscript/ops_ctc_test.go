package torchscript

import "testing"

// TestTracedCTCLoss compares the unrolled CTC recursion with PyTorch 1.13:
// padded targets with repeated labels (which forbid the skip), an empty
// target, input lengths shorter than the sequence, a blank other than 0,
// every reduction, zero_infinity on an impossible alignment, unbatched,
// targets concatenated in one 1-D tensor.
func TestTracedCTCLoss(t *testing.T) {
	traceAndCompareORT(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("t", torch.tensor([[1, 2, 2, 3], [4, 4, 1, 0], [2, 0, 0, 0], [1, 3, 1, 3]]))
        self.register_buffer("il", torch.tensor([10, 8, 7, 3]))
        self.register_buffer("tl", torch.tensor([4, 3, 0, 4]))
        self.register_buffer("cat", torch.tensor([1, 2, 2, 3, 4, 4, 1, 1, 3, 1, 3]))
        self.register_buffer("t5", torch.tensor([[1, 2, 2, 3], [4, 4, 1, 5], [2, 5, 5, 5], [1, 3, 1, 3]]))
    def forward(self, x):
        lp = x.log_softmax(2)
        o = []
        for r in ("none", "mean", "sum"):
            o += [F.ctc_loss(lp, self.t, self.il, self.tl, reduction=r),
                  F.ctc_loss(lp, self.t, self.il, self.tl, reduction=r, zero_infinity=True),
                  F.ctc_loss(lp, self.t5 - 1, self.il, self.tl, blank=5, reduction=r, zero_infinity=True)]
        o += [F.ctc_loss(lp, self.t, [10, 9, 7, 6], [4, 3, 1, 2], reduction="none"),
              F.ctc_loss(lp[:, 0], self.t[0], self.il[:1], self.tl[:1], reduction="none"),
              F.ctc_loss(lp, self.cat, self.il, self.tl, reduction="none"),
              F.ctc_loss(lp, self.cat, self.il, self.tl, reduction="mean", zero_infinity=True)]
        return tuple(o)
torch.manual_seed(0)
xs = [torch.randn(10, 4, 6)]
`, 1e-5, 1e-5)
}
