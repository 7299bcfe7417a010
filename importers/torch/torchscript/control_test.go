package torchscript

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
	"github.com/modelbridge/modelbridge/interp"
)

// scriptFooter saves the scripted module M and PyTorch's outputs on xs.
const scriptFooter = `
m = torch.jit.script(M())
m.save(sys.argv[1] + "/m.pt")
m = torch.jit.load(sys.argv[1] + "/m.pt")
for k, x in enumerate(xs):
    np.save(sys.argv[1] + "/x%d.npy" % k, x.numpy())
with torch.no_grad():
    outs = m(*xs)
if not isinstance(outs, tuple):
    outs = (outs,)
for k, o in enumerate(outs):
    if not isinstance(o, torch.Tensor):
        o = torch.tensor(o)
    np.save(sys.argv[1] + "/y%d.npy" % k, np.require(o.numpy(), requirements="C"))
`

// scripted runs a torch.jit.script module M on xs in PyTorch.
func scripted(t *testing.T, src string) *torchtrace.Module {
	t.Helper()
	return torchtrace.Run(t, "import sys, numpy as np, torch\nfrom typing import List, Tuple, Optional\n"+src+scriptFooter)
}

// countKind counts nodes of kind in g and its subgraphs.
func countKind(g *canon.Graph, kind string) int {
	n := 0
	for _, nd := range g.Nodes {
		if nd.Op.Kind() == kind {
			n++
		}
		if o, ok := nd.Op.(canon.SubgraphOwner); ok {
			for _, s := range o.Subgraphs() {
				n += countKind(s.Graph, kind)
			}
		}
	}
	return n
}

// TestScriptedControlFlow imports scripted modules with data-dependent
// branches and loops and checks them against PyTorch in the interpreter
// and in ONNX Runtime.
func TestScriptedControlFlow(t *testing.T) {
	cases := []struct {
		name       string
		src        string
		ifs, loops int
	}{
		{"if", `
class M(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        return y
xs = [torch.randn(3, 4)]
`, 1, 0},
		{"if-negative", `
class M(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = torch.relu(x) - 1
        return y, x + 1
xs = [-torch.rand(3, 4)]
`, 1, 0},
		{"for-static", `
class M(torch.nn.Module):
    def forward(self, x):
        y = x
        for i in range(4):
            y = y * 0.5 + i
        return y
xs = [torch.randn(2, 3)]
`, 0, 1},
		{"for-size", `
class M(torch.nn.Module):
    def forward(self, x):
        y = x[0]
        for i in range(1, x.size(0)):
            y = y + x[i] * i
        return y
xs = [torch.randn(5, 3)]
`, 0, 1},
		{"for-tensor", `
class M(torch.nn.Module):
    def forward(self, x, n):
        y = x
        for i in range(int(n.sum())):
            y = torch.tanh(y) + 1
        return y
xs = [torch.randn(2, 3), torch.tensor([2., 1.])]
`, 0, 1},
		{"while", `
class M(torch.nn.Module):
    def forward(self, x):
        k = 0
        y = x
        while k < 10 and bool(y.sum() > 0):
            y = y - 1.0
            k += 1
        return y, k
xs = [torch.rand(2, 2) * 3]
`, 1, 1},
		{"if-in-loop", `
class M(torch.nn.Module):
    def forward(self, x):
        y = x
        for i in range(x.size(0)):
            y = y * 0.5
            if bool(y.sum() > 1):
                y = y + 1
            else:
                y = y - x
        t = (y, x)
        a, b = t
        return a + t[1], len(x.shape)
xs = [torch.rand(4, 3) * 4]
`, 1, 1},
		{"weights-in-branch-and-loop", `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 3, padding=1)
        self.fc = torch.nn.Linear(4, 4)
    def forward(self, x):
        if x.mean() > 0:
            y = self.conv(x)
        else:
            y = torch.relu(x)
        for i in range(x.size(0)):
            y = self.fc(y) * 0.5
        return y, self.fc(x)
torch.manual_seed(0)
xs = [torch.randn(3, 2, 4, 4) + 0.5]
`, 1, 1},
		{"tuple-from-branches", `
class M(torch.nn.Module):
    def forward(self, x) -> Tuple[torch.Tensor, torch.Tensor]:
        if bool(x.max() > 0.5):
            return x * 2, x.size(0) + x
        else:
            return x, torch.tanh(x)
xs = [torch.rand(2, 3)]
`, 1, 0},
		{"static-if", `
class M(torch.nn.Module):
    def forward(self, x):
        if x.dim() == 2:
            y = x + 1
        else:
            y = x - 1
        assert x.size(1) == 3, "three columns"
        return y
xs = [torch.randn(2, 3)]
`, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := scripted(t, tc.src)
			g, err := m.Import(ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if got := countKind(g, "If"); got != tc.ifs {
				t.Errorf("%d If nodes, want %d", got, tc.ifs)
			}
			if got := countKind(g, "Loop"); got != tc.loops {
				t.Errorf("%d Loop nodes, want %d", got, tc.loops)
			}
			m.CompareGraph(t, g, 1e-5, 1e-6)
			m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6)
		})
	}
}

// TestThirdPartyScriptedLoop imports foo3.pt, a scripted module from
// another project that multiplies the rows of x in a loop whose branch
// tests the loop variable, and checks the product for inputs of 3 and 1
// rows (the loop's trip count is the run-time row count when the first
// dimension is left open).
func TestThirdPartyScriptedLoop(t *testing.T) {
	path := filepath.Join(testfix.Fixtures(t), "torch-files", "torchscript", "foo3.pt")
	for _, shape := range [][]int64{{3, 2}, {-1, 2}} {
		g, err := ReadFile(path, formats.ReadOptions{InputShapes: map[string][]int64{"x": shape}})
		if err != nil {
			t.Fatal(err)
		}
		if countKind(g, "Loop") != 1 || countKind(g, "If") != 1 {
			t.Errorf("shape %v: %d Loop and %d If nodes, want one each", shape, countKind(g, "Loop"), countKind(g, "If"))
		}
		rows := [][]float32{{1, 2}, {3, -4}, {0.5, 5}}
		if shape[0] < 0 {
			rows = rows[:1]
		}
		var data []float32
		want := []float64{1, 1}
		for _, r := range rows {
			data = append(data, r...)
			want[0] *= float64(r[0])
			want[1] *= float64(r[1])
		}
		x := canon.NewFloat32Tensor("x", []int64{int64(len(rows)), 2}, data)
		res, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := res["output"].Float64s()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("shape %v: product of the rows is %v, want %v", shape, got, want)
		}
	}
}

// TestScriptedControlFlowLimits: a list assigned anew in a loop whose trip
// count only a run tells is refused naming the reason (a float carried
// through such a loop is supported: TestRunTimeFloatCarried); a data-dependent assert is read as an assumption on
// the inputs, with a note.
func TestScriptedControlFlowLimits(t *testing.T) {
	open := formats.ReadOptions{InputShapes: map[string][]int64{"#0": {-1, 2}}}
	for _, c := range []struct{ name, src, want string }{
		{"list-assigned-in-loop", `
class M(torch.nn.Module):
    def forward(self, x):
        l: List[torch.Tensor] = []
        for i in range(x.size(0)):
            l = [x[i], x[0]]
        return torch.stack(l)
xs = [torch.randn(3, 2)]`, "is a list assigned anew inside a loop or a branch: that needs sequence values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := scripted(t, c.src)
			g, err := ReadFile(m.Path(), open)
			if err == nil {
				g.Close()
				t.Fatalf("imported; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
	t.Run("assert", func(t *testing.T) {
		m := scripted(t, `
class M(torch.nn.Module):
    def forward(self, x):
        assert bool(x.sum() > -100.0), "too small"
        return x * 2
xs = [torch.randn(3, 2)]`)
		g := m.Compare(t, ReadFile, 1e-6, 0)
		if !strings.Contains(strings.Join(g.Meta.Notes, "\n"), `raises "AssertionError: too small"`) {
			t.Errorf("notes %q do not name the assertion", g.Meta.Notes)
		}
		if countKind(g, "If") != 0 {
			t.Errorf("the assertion left an If")
		}
	})
}

// TestScriptedBatchedNMS imports torchvision's scripted batched_nms
// (../shared/fixtures/torch2-ops/tv_batched_nms: an if on numel known at
// import, an assertion helper, torch.tensor(1)) and checks the kept
// indices against PyTorch's.
func TestScriptedBatchedNMS(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch2-ops", "tv_batched_nms")
	shapes := map[string][]int64{}
	feed := map[string]*canon.Tensor{}
	for k, name := range []string{"boxes", "argument_2", "argument_3"} {
		x, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", k)))
		if err != nil {
			t.Fatal(err)
		}
		x.Name, shapes[name], feed[name] = name, x.Shape, x
	}
	g, err := ReadFile(filepath.Join(dir, "traced.pt"), formats.ReadOptions{InputShapes: shapes, InputDTypes: map[string]canon.DType{"argument_3": canon.Int64}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := interp.Run(g, feed)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	got := res[g.Outputs[0].Name]
	a, _ := got.Int64s()
	b, _ := want.Int64s()
	if got.DType != want.DType || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("kept %s %v, PyTorch keeps %s %v", got.DType, a, want.DType, b)
	}
}

// TestDeeplyNestedBlocksRefused: a source nesting ifs far deeper than any
// model is refused while parsing.
func TestDeeplyNestedBlocksRefused(t *testing.T) {
	var b strings.Builder
	depth := maxNesting + 10
	for i := 0; i < depth; i++ {
		b.WriteString(strings.Repeat(" ", 4+2*i) + "if True:\n")
	}
	b.WriteString(strings.Repeat(" ", 4+2*depth) + "x = x\n    return x\n")
	p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource(b.String())}, 0)
	g, err := ReadFile(p, formats.ReadOptions{})
	if err == nil {
		g.Close()
		t.Fatal("imported")
	}
	if !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("error %v does not say the blocks nest too deeply", err)
	}
}
