package torchexport

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

// sequentialGraph is conv -> relu -> conv with the weight names
// torch.onnx.export gives an nn.Sequential: "0.weight", "0.bias", "2.weight".
func sequentialGraph() *canon.Graph {
	conv := func() *canon.Conv {
		return &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}, Group: 1}
	}
	w0 := filled("0.weight", canon.Float32, []int64{2, 1, 1, 1})
	b0 := filled("0.bias", canon.Float32, []int64{2})
	w2 := filled("2.weight", canon.Float32, []int64{1, 2, 1, 1})
	return &canon.Graph{
		Name:         "seq",
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 1, 3, 3), RankKnown: true}},
		Outputs:      []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
		Initializers: []*canon.Tensor{w0, b0, w2},
		Nodes: []*canon.Node{
			{Name: "/0/Conv", Op: conv(), Inputs: []string{"x", "0.weight", "0.bias"}, Outputs: []string{"a"}},
			{Name: "/1/Relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"a"}, Outputs: []string{"r"}},
			{Name: "/2/Conv", Op: conv(), Inputs: []string{"r", "2.weight"}, Outputs: []string{"y"}},
		},
	}
}

// TestSequentialNamesKept checks that state-dict keys of an nn.Sequential
// survive: the generated module has children named "0" and "2".
func TestSequentialNamesKept(t *testing.T) {
	mod, err := Generate(sequentialGraph())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mod.Renames {
		if r.From != r.To {
			t.Errorf("weight %s was renamed to %s", r.From, r.To)
		}
	}
	for _, want := range []string{`self.add_module("0", nn.Conv2d(1, 2,`, `self.add_module("2", nn.Conv2d(2, 1,`, `= getattr(self, "0")(x_1)`, `= getattr(self, "2")(r)`} {
		if !strings.Contains(mod.Source, want) {
			t.Errorf("model.py lacks %q:\n%s", want, mod.Source)
		}
	}
}

// TestSequentialRoundTripInTorch exports a real nn.Sequential with
// torch.onnx.export, converts the ONNX file back to model.py + weights.pt,
// and checks in PyTorch that the generated Model strictly loads both
// weights.pt and the original module's own state dict, and computes what
// the original computes.
func TestSequentialRoundTripInTorch(t *testing.T) {
	py := torchPython(t)
	dir := t.TempDir()
	makeScript := `
import sys, torch, torch.nn as nn
torch.manual_seed(0)
m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 2, 1, bias=False), nn.Flatten(), nn.Linear(2 * 5 * 5, 3)).eval()
x = torch.randn(1, 3, 5, 5)
torch.onnx.export(m, x, sys.argv[1] + "/seq.onnx", input_names=["x"], output_names=["y"], opset_version=13)
torch.save({"sd": m.state_dict(), "x": x, "y": m(x).detach()}, sys.argv[1] + "/ref.pt")
`
	if out, err := exec.Command(py, "-c", makeScript, dir).CombinedOutput(); err != nil {
		t.Fatalf("torch.onnx.export failed: %v\n%s", err, out)
	}
	g, err := onnximport.Read(filepath.Join(dir, "seq.onnx"), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var names []string
	for _, w := range g.Initializers {
		names = append(names, w.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "0.weight") {
		t.Fatalf("torch.onnx.export did not keep the Sequential names; initializers: %v", names)
	}
	out := filepath.Join(dir, "torch")
	res, err := Export(g, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Renames {
		if r.From != r.To {
			t.Errorf("weight %s was renamed to %s", r.From, r.To)
		}
	}
	runScript := `
import importlib.util, sys, torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("seq_model", d + "/torch/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
ref = torch.load(d + "/ref.pt")
exported = torch.load(d + "/torch/weights.pt")
assert list(exported.keys()) == list(ref["sd"].keys()), (list(exported.keys()), list(ref["sd"].keys()))
for sd in (exported, ref["sd"]):
    m = mod.Model()
    m.load_state_dict(sd, strict=True)
    with torch.no_grad():
        y = m(ref["x"])
    err = (y - ref["y"]).abs().max().item()
    assert err <= 1e-5, "output differs by %g" % err
print("ok")
`
	if out, err := exec.Command(py, "-c", runScript, dir).CombinedOutput(); err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("the generated Model does not match the original nn.Sequential: %v\n%s", err, out)
	}
}
