package torchexport

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// collidingGraph is named to break a naive model.py: an input that
// lower-cases to a keyword (IF), locals named like builtins the code
// calls (getattr, float, range), a node that lower-cases to a keyword
// (Class), and weights named like nn.Module methods
// (register_forward_hook, compile) or an nn.Sequential index ("0.weight",
// reached with getattr).
func collidingGraph() *canon.Graph {
	conv := func() *canon.Conv {
		return &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}, Group: 1}
	}
	small := func(name string, shape ...int64) *canon.Tensor {
		n := canon.NumElements(shape)
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i%5)/4 - 0.5
		}
		return canon.NewFloat32Tensor(name, shape, v)
	}
	w0 := small("0.weight", 2, 1, 1, 1)
	hook := small("register_forward_hook", 2, 2, 1, 1)
	comp := small("compile", 2)
	for _, w := range []*canon.Tensor{w0, hook} {
		w.Layout, _ = canon.LayoutFor(canon.RoleConvWeight, 4)
	}
	comp.Layout, _ = canon.LayoutFor(canon.RoleBias, 1)
	return &canon.Graph{
		Name:         "colliding",
		Inputs:       []canon.ValueInfo{{Name: "IF", DType: canon.Float32, Shape: canon.DimsOf(1, 1, 3, 3), RankKnown: true}},
		Outputs:      []canon.ValueInfo{{Name: "Return", DType: canon.Float32}},
		Initializers: []*canon.Tensor{w0, hook, comp},
		Nodes: []*canon.Node{
			{Name: "getattr", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"IF"}, Outputs: []string{"getattr"}},
			{Name: "/0/Conv", Op: conv(), Inputs: []string{"getattr", "0.weight"}, Outputs: []string{"float"}},
			{Name: "Class", Op: conv(), Inputs: []string{"float", "register_forward_hook", "compile"}, Outputs: []string{"range"}},
			{Name: "FLOAT", Op: &canon.Unary{Fn: canon.Sigmoid}, Inputs: []string{"range"}, Outputs: []string{"Return"}},
		},
	}
}

// The generated model.py of collidingGraph runs in real PyTorch, loads its
// weights strictly, and computes what the interpreter computes.
func TestCollidingNamesRunInTorch(t *testing.T) {
	g := collidingGraph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	mod, err := Generate(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\n        if =", "\n        getattr =", "\n        float =", "\n        range =", "self.register_forward_hook ="} {
		if strings.Contains(mod.Source, bad) {
			t.Errorf("model.py assigns %q:\n%s", strings.TrimSpace(bad), mod.Source)
		}
	}
	py := torchPython(t)
	x := canon.NewFloat32Tensor("IF", []int64{1, 1, 3, 3}, []float32{-1, 0.5, 2, -0.25, 1, -3, 0.75, 0, 1.5})
	out, err := interp.Run(g, map[string]*canon.Tensor{"IF": x})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := out["Return"].Float64s()
	xs, _ := x.Float64s()
	dir := t.TempDir()
	if _, err := Export(g, filepath.Join(dir, "m")); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"x": xs, "want": want})
	script := `
import importlib.util, json, sys, torch
d, a = sys.argv[1], json.loads(sys.argv[2])
spec = importlib.util.spec_from_file_location("m", d + "/m/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(d + "/m/weights.pt"), strict=True)
assert callable(m.register_forward_hook), "a weight replaced nn.Module.register_forward_hook"
with torch.no_grad():
    y = m(torch.tensor(a["x"]).reshape(1, 1, 3, 3))
err = (y.flatten() - torch.tensor(a["want"])).abs().max().item()
assert err <= 1e-5, "differs by %g" % err
print("ok")
`
	if b, err := exec.Command(py, "-c", script, dir, string(args)).CombinedOutput(); err != nil || !strings.Contains(string(b), "ok") {
		t.Fatalf("the generated model.py fails in PyTorch: %v\n%s\n%s", err, b, mod.Source)
	}
}
