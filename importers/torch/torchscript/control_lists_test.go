package torchscript

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// openRows leaves the first axis of input 0 open, so that loops over it
// are Loops (a trip count known at import unrolls instead).
var openRows = formats.ReadOptions{InputShapes: map[string][]int64{"#0": {-1, 3}}}

// TestScriptedListsInLoops imports scripted modules that append to lists
// in loops whose trip count only a run tells (and in branches), then read
// them with torch.stack, torch.cat, len and indexing, and checks them
// against PyTorch in the interpreter and in ONNX Runtime.
func TestScriptedListsInLoops(t *testing.T) {
	cases := []struct{ name, src string }{
		{"stack-cat-index-len", `
class M(torch.nn.Module):
    def forward(self, x):
        out: List[torch.Tensor] = []
        acc = x[0]
        for i in range(x.size(0)):
            acc = acc + x[i]
            out.append(acc * 2)
        if bool(x.sum() > 0):
            out.append(x[0])
        else:
            out.append(x[1])
        return torch.stack(out), torch.cat(out, 0), out[1], out[-1], len(out)
xs = [torch.randn(4, 3)]
`},
		{"while-stack-dims", `
class M(torch.nn.Module):
    def forward(self, x):
        parts: List[torch.Tensor] = []
        y = x
        k = 0
        while k < 8 and bool(y.sum() > 0.5):
            y = y * 0.5
            parts.append(y)
            k += 1
        return torch.stack(parts, 1), torch.cat(parts, 1), torch.stack(parts, -1), len(parts)
xs = [torch.rand(3, 3) + 0.2]
`},
		{"head-items-and-run-time-index", `
class M(torch.nn.Module):
    def forward(self, x):
        hs = [x[0] * 0.0]
        h = x[0]
        for i in range(x.size(0)):
            h = torch.tanh(h + x[i])
            hs.append(h)
        s = hs[0]
        for j in range(len(hs)):
            s = s * 0.5 + hs[j]
        return s, hs[2], hs[-2], torch.stack(hs)
xs = [torch.randn(5, 3)]
`},
		{"append-in-both-branches-inside-loop", `
class M(torch.nn.Module):
    def forward(self, x):
        out: List[torch.Tensor] = []
        for i in range(x.size(0)):
            r = x[i]
            if bool(r.sum() > 0):
                out.append(r * 2)
            else:
                out.append(-r)
        return torch.cat(out)
xs = [torch.randn(6, 3)]
`},
		{"local-list-in-body", `
class M(torch.nn.Module):
    def forward(self, x):
        y = x[0]
        for i in range(x.size(0)):
            parts = [y, x[i]]
            parts.append(y * x[i])
            y = torch.stack(parts).sum(0)
        return y
xs = [torch.randn(3, 3) * 0.5]
`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := scripted(t, tc.src)
			g, err := ReadFile(m.Path(), openRows)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if countKind(g, "Loop") == 0 {
				t.Errorf("no Loop: the loop was unrolled")
			}
			m.CompareGraph(t, g, 1e-5, 1e-6)
			m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6)
		})
	}
}

// TestScriptedListRefusals: list patterns a Loop's scan outputs cannot
// express are refused naming aten::append (or what reads the list) and the
// line.
func TestScriptedListRefusals(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"append-in-one-branch", `
class M(torch.nn.Module):
    def forward(self, x):
        out: List[torch.Tensor] = []
        for i in range(x.size(0)):
            if bool(x[i].sum() > 0):
                out.append(x[i])
        return torch.stack(out)
xs = [torch.randn(3, 3)]`, "aten::append: the branches append 1 and 0 items to out"},
		{"two-appends-per-iteration", `
class M(torch.nn.Module):
    def forward(self, x):
        out: List[torch.Tensor] = []
        for i in range(x.size(0)):
            out.append(x[i])
            out.append(x[i] * 2)
        return torch.stack(out)
xs = [torch.randn(3, 3)]`, "the loop appends 2 items to out in one iteration"},
		{"read-inside-loop", `
class M(torch.nn.Module):
    def forward(self, x):
        out = [x[0]]
        for i in range(x.size(0)):
            out.append(out[-1] + x[i])
        return torch.stack(out)
xs = [torch.randn(3, 3)]`, "cannot index a list from outside the branch or loop"},
		{"returned-list", `
class M(torch.nn.Module):
    def forward(self, x) -> List[torch.Tensor]:
        out: List[torch.Tensor] = []
        for i in range(x.size(0)):
            out.append(x[i])
        return out
xs = [torch.randn(3, 3)]`, "returns a list built by a loop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := torchtrace.Run(t, "import sys, torch\nfrom typing import List\n"+c.src+"\ntorch.jit.script(M()).save(sys.argv[1] + \"/m.pt\")\n")
			g, err := ReadFile(m.Path(), openRows)
			if err == nil {
				g.Close()
				t.Fatalf("imported; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
			if where := "__torch__.py:"; c.name != "returned-list" && !strings.Contains(err.Error(), where) {
				t.Fatalf("error %q does not name the code line", err)
			}
		})
	}
}
