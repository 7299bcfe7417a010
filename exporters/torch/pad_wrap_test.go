package torchexport

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/interp"
)

// A constant-pads Pad in wrap mode on a 3-D int32 input, with a pad wider
// than its axis and a negative (cropping) pad, runs in PyTorch as the
// interpreter computes it.
func TestPadWrapRunsInTorch(t *testing.T) {
	py := torchPython(t)
	v := make([]int64, 2*3*4)
	for i := range v {
		v[i] = int64(i*7%11 - 5)
	}
	x := &canon.Tensor{Name: "x", DType: canon.Int32, Shape: []int64{2, 3, 4}}
	for _, n := range v {
		x.Data = append(x.Data, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	g := &canon.Graph{Name: "wrap",
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Int32, Shape: canon.DimsOf(2, 3, 4), RankKnown: true}},
		Nodes:   []*canon.Node{{Name: "pad", Op: &canon.Pad{Mode: canon.PadWrap, PadsBegin: []int64{0, 4, -1}, PadsEnd: []int64{1, 0, 2}}, Inputs: []string{"x"}, Outputs: []string{"y"}}},
		Outputs: []canon.ValueInfo{{Name: "y", DType: canon.Int32}},
	}
	inputs := map[string]*canon.Tensor{"x": x}
	want, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "wrap")
	if _, err := Export(g, dir); err != nil {
		t.Fatal(err)
	}
	if err := writeNpy(filepath.Join(dir, "x.npy"), x); err != nil {
		t.Fatal(err)
	}
	script := `
import importlib.util, sys
import numpy as np, torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("wrap_model", d + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(d + "/weights.pt"), strict=True)
with torch.no_grad():
    y = m(torch.from_numpy(np.load(d + "/x.npy")))
np.save(d + "/y.npy", np.ascontiguousarray(y.numpy()))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("PyTorch failed on the exported model: %v\n%s", err, out)
	}
	got, err := npy.ReadFile(filepath.Join(dir, "y.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := compare.Tensors(got, want["y"], 0, 0); err != nil || !res.OK {
		t.Errorf("wrap Pad differs from the interpreter: %v %+v", err, res)
	}
}
