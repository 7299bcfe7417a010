package torchexport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// scriptedRuns scripts the module M of src in PyTorch, saves it as m.pt
// in a new folder and, for each input list in xs (a Python list of input
// lists), saves the inputs as x<set>_<k>.npy and PyTorch's outputs as
// y<set>_<k>.npy. It returns the folder.
func scriptedRuns(t *testing.T, src string) string {
	t.Helper()
	py := testfix.Torch(t, "numpy")
	dir := t.TempDir()
	script := "import sys, numpy as np, torch\nfrom typing import List, Tuple\n" + src + `
m = torch.jit.script(M())
m.save(sys.argv[1] + "/m.pt")
m = torch.jit.load(sys.argv[1] + "/m.pt")
for s, ins in enumerate(xs):
    for k, x in enumerate(ins):
        np.save(sys.argv[1] + "/x%d_%d.npy" % (s, k), x.numpy())
    with torch.no_grad():
        outs = m(*ins)
    if not isinstance(outs, tuple):
        outs = (outs,)
    for k, o in enumerate(outs):
        np.save(sys.argv[1] + "/y%d_%d.npy" % (s, k), np.require(o.numpy(), requirements="C"))
`
	path := filepath.Join(dir, "script.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, path, dir).CombinedOutput(); err != nil {
		t.Fatalf("scripting: %v\n%s", err, out)
	}
	return dir
}

// loadSet loads dir/<prefix><set>_0.npy, _1.npy ... up to the first missing.
func loadSet(t *testing.T, dir, prefix string, set int) []*canon.Tensor {
	t.Helper()
	var out []*canon.Tensor
	for k := 0; ; k++ {
		p := filepath.Join(dir, fmt.Sprintf("%s%d_%d.npy", prefix, set, k))
		if _, err := os.Stat(p); err != nil {
			return out
		}
		v, err := tensorfile.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
}

// checkOutputs compares what who computed with PyTorch's outputs.
func checkOutputs(t *testing.T, who string, got, want []*canon.Tensor) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outputs, PyTorch gives %d", who, len(got), len(want))
	}
	for k := range want {
		g, w := got[k], want[k]
		if g.DType != w.DType || fmt.Sprint(g.Shape) != fmt.Sprint(w.Shape) {
			t.Errorf("%s: output %d is %s%v, PyTorch's %s%v", who, k, g.DType, g.Shape, w.DType, w.Shape)
			continue
		}
		if r, err := compare.Tensors(g, w, 1e-5, 1e-6); err != nil || !r.OK {
			t.Errorf("%s: output %d differs from PyTorch: %+v %v", who, k, r, err)
		}
	}
}

// TestScriptedControlFlowToONNXAndModelPy: a scripted module whose for
// loop's trip count and if's branch depend on the input's values converts
// to ONNX (run in the interpreter and in ONNX Runtime) and to model.py
// (run in PyTorch), and every one matches PyTorch's own outputs on two
// inputs that take different branches and trip counts.
func TestScriptedControlFlowToONNXAndModelPy(t *testing.T) {
	dir := scriptedRuns(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
    def forward(self, x):
        n = int((x.sum() > 0).long() * 3 + 1)
        y = x
        for i in range(n):
            y = torch.tanh(self.fc(y)) + i
        if bool(x.mean() > 0):
            z = y * 2 + x
        else:
            z = torch.relu(y) - x
        k = 0
        while k < 6 and bool(z.sum() > 0):
            z = z - 0.75
            k += 1
        return z, y
torch.manual_seed(0)
xs = [[torch.rand(3, 4) + 0.1], [-torch.rand(3, 4) - 0.1]]
trips = [int((ins[0].sum() > 0).long() * 3 + 1) for ins in xs]
branches = [bool(ins[0].mean() > 0) for ins in xs]
assert trips[0] != trips[1] and branches[0] != branches[1], (trips, branches)
`)
	g, err := torchscript.ReadFile(filepath.Join(dir, "m.pt"), formats.ReadOptions{InputShapes: map[string][]int64{"#0": {3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	kinds := map[string]int{}
	for _, n := range g.Nodes {
		kinds[n.Op.Kind()]++
	}
	if kinds["If"] < 1 || kinds["Loop"] < 2 {
		t.Fatalf("imported %v: want an If and two Loops", kinds)
	}
	onnxPath := filepath.Join(t.TempDir(), "model.onnx")
	if err := onnxexport.Write(g, onnxPath, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	fromONNX, err := onnximport.Read(onnxPath, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fromONNX.Close()
	py := testfix.Torch(t, "numpy")
	for set := 0; set < 2; set++ {
		ins, want := loadSet(t, dir, "x", set), loadSet(t, dir, "y", set)
		feed := map[string]*canon.Tensor{}
		for k, v := range ins {
			v.Name = fromONNX.Inputs[k].Name
			feed[v.Name] = v
		}
		res, err := interp.Run(fromONNX, feed)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]*canon.Tensor, len(fromONNX.Outputs))
		for k, o := range fromONNX.Outputs {
			got[k] = res[o.Name]
		}
		checkOutputs(t, fmt.Sprintf("input %d, model.onnx in the interpreter", set), got, want)

		checkOutputs(t, fmt.Sprintf("input %d, model.py in PyTorch", set), runModelPy(t, py, g, feedFor(g, ins)), want)

	}
	t.Run("onnxruntime", func(t *testing.T) {
		rt := testfix.ORT(t)
		for set := 0; set < 2; set++ {
			got, err := rt.Run(onnxPath, loadSet(t, dir, "x", set), ort.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkOutputs(t, fmt.Sprintf("input %d, model.onnx in ONNX Runtime", set), got, loadSet(t, dir, "y", set))
		}
	})
	mod, err := Generate(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"for i in range(", "while ", "if bool("} {
		if !strings.Contains(mod.Source, want) {
			t.Errorf("model.py has no %q:\n%s", want, mod.Source)
		}
	}
}

// feedFor names ins as g's inputs.
func feedFor(g *canon.Graph, ins []*canon.Tensor) map[string]*canon.Tensor {
	feed := map[string]*canon.Tensor{}
	for k, v := range ins {
		feed[g.Inputs[k].Name] = v
	}
	return feed
}

// TestControlFlowNodeCasesRunInTorch exports the ONNX node cases built on
// If, Loop and Scan (Range's expanded cases are Loops) as model.py, runs
// them in PyTorch and compares with the stored outputs. (The cases on
// sequence and optional values are not among them.)
func TestControlFlowNodeCasesRunInTorch(t *testing.T) {
	py := testfix.Torch(t, "numpy")
	// The bfloat16 Range case is left out: .npy, which feeds PyTorch here,
	// has no bfloat16.
	models := nodeCaseModels(t, "test_if", "test_loop11", "test_scan_sum", "test_scan9_*",
		"test_range_float_type_positive_delta_expanded", "test_range_float16_type_positive_delta_expanded",
		"test_range_int32_type_negative_delta_expanded")
	if len(models) != 9 {
		t.Fatalf("found %d control-flow node cases; the fixture folder is incomplete", len(models))
	}
	n := torchSweep{models: models, strictImport: true, refusalOK: func(error) bool { return false }}.run(t, py)
	t.Logf("%d control-flow node cases: %d refused, %d run in PyTorch and match", len(models), n.refused, n.matched)
	if n.matched != len(models) {
		t.Errorf("%d of %d cases match", n.matched, len(models))
	}
}

// TestScriptedNestedControlFlowToModelPy: branches inside loops and loops
// inside branches, with weights read inside both, run from model.py as in
// PyTorch on inputs that take different paths.
func TestScriptedNestedControlFlowToModelPy(t *testing.T) {
	dir := scriptedRuns(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 3)
    def forward(self, x):
        y = x
        for i in range(x.size(0)):
            y = y * 0.5
            if bool(y.sum() > 1):
                y = self.fc(y) + i
            else:
                y = y - x
        if bool(x.mean() > 0):
            k = 0
            while k < 4 and bool(y.abs().sum() > 0.5):
                y = y * 0.5
                k += 1
        else:
            y = -y
        return y
torch.manual_seed(0)
xs = [[torch.rand(4, 3) * 4], [-torch.rand(2, 3)]]
`)
	py := testfix.Torch(t, "numpy")
	for set := 0; set < 2; set++ {
		ins, want := loadSet(t, dir, "x", set), loadSet(t, dir, "y", set)
		g, err := torchscript.ReadFile(filepath.Join(dir, "m.pt"), formats.ReadOptions{InputShapes: map[string][]int64{"#0": ins[0].Shape}})
		if err != nil {
			t.Fatal(err)
		}
		checkOutputs(t, fmt.Sprintf("input %d, model.py in PyTorch", set), runModelPy(t, py, g, feedFor(g, ins)), want)
		g.Close()
	}
}

// TestLoopTripCountsInModelPy: a Loop's trip count read at run time
// (zero, negative and positive) gives in model.py what it gives in the
// interpreter, scan outputs of no iteration included.
func TestLoopTripCountsInModelPy(t *testing.T) {
	py := testfix.Torch(t, "numpy")
	body := &canon.Graph{Name: "body",
		Inputs: []canon.ValueInfo{{Name: "i", DType: canon.Int64, RankKnown: true}, {Name: "c", DType: canon.Bool, RankKnown: true},
			{Name: "acc", DType: canon.Float32, Shape: canon.DimsOf(2), RankKnown: true}},
		Nodes: []*canon.Node{
			{Name: "add", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"acc", "x"}, Outputs: []string{"acc_next"}},
			{Name: "keep", Op: &canon.Identity{}, Inputs: []string{"c"}, Outputs: []string{"c_next"}},
			{Name: "emit", Op: &canon.Identity{}, Inputs: []string{"acc"}, Outputs: []string{"scan"}},
		},
		Outputs: []canon.ValueInfo{{Name: "c_next"}, {Name: "acc_next"}, {Name: "scan"}}}
	g := &canon.Graph{Name: "trip_counts",
		Inputs: []canon.ValueInfo{{Name: "m", DType: canon.Int64, RankKnown: true},
			{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2), RankKnown: true}},
		Nodes:   []*canon.Node{{Name: "loop", Op: &canon.Loop{Body: body, Captures: []string{"x"}}, Inputs: []string{"m", "", "x", "x"}, Outputs: []string{"y", "ys"}}},
		Outputs: []canon.ValueInfo{{Name: "y"}, {Name: "ys"}}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []int64{0, -2, 3} {
		feed := map[string]*canon.Tensor{"m": canon.NewInt64Tensor("m", []int64{}, []int64{m}),
			"x": canon.NewFloat32Tensor("x", []int64{2}, []float32{1, -2})}
		res, err := interp.Run(g, feed)
		if err != nil {
			t.Fatal(err)
		}
		want := []*canon.Tensor{res["y"], res["ys"]}
		checkOutputs(t, fmt.Sprintf("M=%d, model.py in PyTorch", m), runModelPy(t, py, g, feed), want)
	}
}
