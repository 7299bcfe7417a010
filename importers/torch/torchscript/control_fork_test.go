package torchscript

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
)

// rankChangingIf is BoxCoder.decode's pattern: a value reshaped to three
// axes only when a run-time count is positive, then split, sliced and
// reshaped by code that needs its rank (expand_as to sizes only a run
// tells included). Its second result has rank 2 in one branch and 1 in the
// other.
const rankChangingIf = `
class M(torch.nn.Module):
    def forward(self, codes, scores):
        keep = torch.where(scores > 0.5)[0]
        c = codes[keep] * 2.0
        n = c.size(0)
        if n > 0:
            c = c.reshape(n, -1, 4)
        parts = torch.split(c, [n], 0)
        first = parts[0][:, 1:]
        w = (first[..., :1] * 0.0 + 3.0).expand_as(first)
        return first.reshape(-1, 4) + 1.0, c.sum(0), w
`

// TestScriptedRankChangingIf imports a scripted if whose branches give a
// value different ranks, with the code after it imported once per branch,
// and checks both branches against PyTorch in the interpreter and in ONNX
// Runtime: with rows kept, and with none (the empty case torchvision's
// detectors meet when no proposal survives).
func TestScriptedRankChangingIf(t *testing.T) {
	cases := []struct{ name, args string }{
		{"some-kept", "torch.manual_seed(0)\nargs = [torch.randn(7, 8), torch.tensor([0.9, 0.1, 0.7, 0.6, 0.2, 0.8, 0.3])]\n"},
		{"none-kept", "torch.manual_seed(0)\nargs = [torch.randn(7, 8), torch.full((7,), 0.25)]\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := scriptedContainers(t, rankChangingIf+tc.args)
			g, err := m.Import(ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if got := countKind(g, "If"); got != 1 {
				t.Errorf("%d If nodes, want 1 (the split if)", got)
			}
			note := strings.Join(g.Meta.Notes, "\n")
			if !strings.Contains(note, "each branch of the If carries its own copy of the code after it") {
				t.Errorf("notes %q do not say the if was split", note)
			}
			m.CompareGraph(t, g, 1e-6, 1e-6)
			m.CompareORT(t, g, formats.WriteOptions{}, 1e-6, 1e-6)
		})
	}
}
