package torchscript

import (
	"strings"
	"testing"
)

// TestTracedRandomRefused: a traced draw (here an in-place one after an
// out-of-place one) is refused by the operator's name, saying why.
func TestTracedRandomRefused(t *testing.T) {
	dir, _ := trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return x + torch.randn_like(x) + torch.empty(2, 3).uniform_()
xs = [torch.randn(2, 3)]
`)
	_, _, err := readTraced(t, dir)
	if err == nil || !strings.Contains(err.Error(), "torch.randn_like") || !strings.Contains(err.Error(), "draws random numbers") {
		t.Fatalf("want randn_like refused as random, got %v", err)
	}
}
