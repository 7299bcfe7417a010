package torchscript

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// TestScriptingOnlyRegistryOps measures the aten registry entries that no
// traced module records (testdata/make_aten_registry_cases.py lists them
// as not traced: scripting-only statements and builtins) with scripted
// modules that use them, checked against PyTorch. Entries that are not
// operators at all (_cast_*, _floor_divide, get_pool_ceil_padding, scan,
// lift) have no case. A listed pass that fails, or a wrong number, fails
// the test; the rest are logged with their reasons.
func TestScriptingOnlyRegistryOps(t *testing.T) {
	cases := []struct {
		op, src string
		pass    bool
	}{
		{"__derive_index", `
class M(torch.nn.Module):
    def forward(self, x):
        y = x[0]
        for j in range(1, x.size(0)):
            y = y * j + x[j]
        return y
xs = [torch.randn(4, 3)]`, true},
		{"__range_length", `
class M(torch.nn.Module):
    def forward(self, x, n):
        y = x
        for j in range(2, int(n.sum())):
            y = y + j
        return y
xs = [torch.randn(2, 3), torch.tensor([5.])]`, true},
		{"__getitem_", `
class M(torch.nn.Module):
    def forward(self, x):
        t = (x, x * 2)
        l = [x + 1, x - 1]
        return t[1] + l[0]
xs = [torch.randn(2, 3)]`, true},
		{"__is_", `
class M(torch.nn.Module):
    b: Optional[torch.Tensor]
    def __init__(self):
        super().__init__()
        self.b = None
    def forward(self, x):
        b = self.b
        if b is None:
            return x + 1
        return x + b
xs = [torch.randn(2, 3)]`, true},
		{"__isnot_", `
class M(torch.nn.Module):
    b: Optional[torch.Tensor]
    def __init__(self):
        super().__init__()
        self.b = None
    def forward(self, x):
        b = self.b
        if b is not None:
            return x + b
        return x - 1
xs = [torch.randn(2, 3)]`, true},
		{"__not_", `
class M(torch.nn.Module):
    def forward(self, x):
        if not bool(x.sum() > 0):
            y = x * 3
        else:
            y = x
        return y
xs = [torch.randn(2, 3)]`, true},
		{"len", `
class M(torch.nn.Module):
    def forward(self, x):
        return x * len(x.shape), len([x, x])
xs = [torch.randn(2, 3)]`, true},
		{"dim", `
class M(torch.nn.Module):
    def forward(self, x):
        if x.dim() == 2:
            return x + 1
        return x
xs = [torch.randn(2, 3)]`, true},
		{"floordiv", `
class M(torch.nn.Module):
    def forward(self, x):
        return x[: x.size(0) // 2]
xs = [torch.randn(5, 3)]`, true},
		{"append", `
class M(torch.nn.Module):
    def forward(self, x):
        l: List[torch.Tensor] = []
        for i in range(x.size(0)):
            l.append(x[i] * i)
        return torch.stack(l)
xs = [torch.randn(3, 2)]`, true},
		{"list", `
class M(torch.nn.Module):
    def forward(self, x):
        s = list(x.shape)
        return x.reshape(s[1], s[0])
xs = [torch.randn(2, 3)]`, true},
		{"insert", `
class M(torch.nn.Module):
    def forward(self, x):
        l = [x]
        l.insert(0, x * 2)
        return l[0]
xs = [torch.randn(2, 3)]`, true},
		{"pop", `
class M(torch.nn.Module):
    def forward(self, x):
        l = [x, x * 2]
        return l.pop()
xs = [torch.randn(2, 3)]`, true},
		{"_set_item", `
class M(torch.nn.Module):
    def forward(self, x):
        l = [x, x]
        l[1] = x * 2
        return l[1]
xs = [torch.randn(2, 3)]`, true},
		{"Delete", `
class M(torch.nn.Module):
    def forward(self, x):
        l = [x, x * 2]
        del l[0]
        return l[0]
xs = [torch.randn(2, 3)]`, true},
		{"__interpolate", `
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode="nearest")
xs = [torch.randn(1, 2, 3, 3)]`, true},
		{"is_floating_point", `
class M(torch.nn.Module):
    def forward(self, x):
        if x.is_floating_point():
            return x + 1
        return x
xs = [torch.randn(2, 3)]`, true},
		{"is_pinned", `
class M(torch.nn.Module):
    def forward(self, x):
        if x.is_pinned():
            return x + 1
        return x
xs = [torch.randn(2, 3)]`, true},
		{"item", `
class M(torch.nn.Module):
    def forward(self, x):
        return x * x.sum().item()
xs = [torch.randn(2, 3)]`, true},
	}
	passed := 0
	for _, tc := range cases {
		t.Run(tc.op, func(t *testing.T) {
			m := scripted(t, tc.src)
			g, err := m.Import(ReadFile)
			if err != nil {
				if tc.pass {
					t.Errorf("%s passed before and is now refused: %v", tc.op, err)
				}
				t.Logf("%s refused: %s", tc.op, firstErrLine(err))
				return
			}
			defer g.Close()
			res, err := interp.Run(g, m.Feed(g))
			if err != nil {
				if tc.pass {
					t.Errorf("%s passed before and now fails to run: %v", tc.op, err)
				}
				t.Logf("%s does not run: %s", tc.op, firstErrLine(err))
				return
			}
			got := make([]*canon.Tensor, len(g.Outputs))
			for k, o := range g.Outputs {
				got[k] = res[o.Name]
			}
			m.CompareGraph(t, g, 1e-5, 1e-6) // a wrong number fails
			if !t.Failed() {
				passed++
				if !tc.pass {
					t.Logf("%s passes and is not marked as passing yet", tc.op)
				}
			}
		})
	}
	t.Logf("scripting-only registry entries: %d of %d with a scripted case pass (e2e TestAtenRegistry counts the same scripted modules in the registry table)", passed, len(cases))
}

func firstErrLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
