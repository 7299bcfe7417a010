package torchscript

import "testing"

// TestTracedShiftedWindows reads what Swin's shifted windows trace to:
// torch.roll over two axes (negative and wrapping shifts), padding sizes
// computed by torch.remainder on sizes made tensors, and dropout with
// p = 0 in training mode, and MaxViT's swapaxes; each checked against
// PyTorch.
func TestTracedShiftedWindows(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def forward(self, x):
        H, W = x.shape[1], x.shape[2]
        pad_r = (7 - W % 7) % 7
        pad_b = (7 - H % 7) % 7
        y = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        y = torch.roll(y, shifts=(-3, 9), dims=(1, 2))
        y = F.dropout(y, p=0.0, training=True)
        return y, torch.roll(x, 2, 1), torch.swapaxes(x, 1, -1), x.swapdims(0, 2)
torch.manual_seed(0)
xs = [torch.randn(1, 5, 9, 4)]
`)
}

// TestTracedSwinV2Bias reads Swin v2's bias trick: numel of a cloned bias
// and zero_ on a slice of it, then a linear layer with that bias.
func TestTracedSwinV2Bias(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(2)
        self.qkv = torch.nn.Linear(4, 12)
        self.qkv.requires_grad_(False)
    def forward(self, x):
        b = self.qkv.bias.clone()
        n = b.numel() // 3
        b[n:2 * n].zero_()
        return F.linear(x, self.qkv.weight, b)
xs = [torch.randn(2, 4)]
`)
}

// TestTracedInPlaceDropoutOnView reads EfficientNet's classifier:
// Dropout(inplace=True) in eval mode on the view flatten makes.
func TestTracedInPlaceDropoutOnView(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = torch.nn.Dropout(0.2, inplace=True)
    def forward(self, x):
        return self.drop(torch.flatten(x, 1)) * 2
m = M().eval()
M = lambda: m
xs = [torch.randn(2, 3, 2, 2)]
`)
}
