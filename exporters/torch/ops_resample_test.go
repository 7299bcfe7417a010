package torchexport

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/interp"
)

// resampleGraph resizes three inputs (rank 3, 4 and 5) in every form
// F.interpolate writes, one output per form.
func resampleGraph(t *testing.T) (*canon.Graph, map[string]*canon.Tensor) {
	t.Helper()
	shapes := map[string][]int64{"x3": {1, 2, 6}, "x4": {1, 2, 5, 7}, "x5": {1, 1, 3, 4, 5},
		"grid4": {1, 3, 4, 2}, "grid5": {1, 2, 3, 2, 3}, "theta": {1, 2, 3}, "cols": {1, 8, 6}, "cols2": {2, 18, 12}}
	g := &canon.Graph{Name: "resample"}
	inputs := map[string]*canon.Tensor{}
	for _, name := range resampleInputs {
		s := shapes[name]
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: name, DType: canon.Float32, Shape: canon.DimsOf(s...), RankKnown: true})
		v := make([]float32, canon.NumElements(s))
		for i := range v {
			v[i] = float32(math.Sin(float64(i)*0.7+0.2) * 3)
			if name == "grid4" || name == "grid5" {
				v[i] *= 0.4 // some points outside [-1, 1]
			}
		}
		inputs[name] = canon.NewFloat32Tensor(name, s, v)
	}
	lin, cub, near := canon.ResizeLinear, canon.ResizeCubic, canon.ResizeNearest
	hp, ac := canon.HalfPixel, canon.AlignCorners
	cases := []struct {
		in string
		op canon.Resize
	}{
		{"x4", canon.Resize{Mode: near, CoordTransform: canon.Asymmetric, Nearest: canon.Floor, Scales: []float32{1, 1, 2, 3}}},
		{"x4", canon.Resize{Mode: near, CoordTransform: canon.Asymmetric, Nearest: canon.Floor, Sizes: []int64{1, 2, 8, 4}}},
		{"x4", canon.Resize{Mode: near, CoordTransform: hp, Nearest: canon.RoundPreferCeil, Sizes: []int64{1, 2, 3, 11}}},
		{"x4", canon.Resize{Mode: lin, CoordTransform: hp, Sizes: []int64{1, 2, 9, 4}}},
		{"x4", canon.Resize{Mode: lin, CoordTransform: ac, Sizes: []int64{1, 2, 9, 13}}},
		{"x4", canon.Resize{Mode: lin, CoordTransform: hp, Scales: []float32{1, 1, 1.5, 0.5}}},
		{"x4", canon.Resize{Mode: lin, CoordTransform: canon.PytorchHalfPixel, Sizes: []int64{1, 2, 10, 14}}},
		{"x4", canon.Resize{Mode: cub, CoordTransform: hp, CubicCoeffA: -0.75, Sizes: []int64{1, 2, 10, 5}}},
		{"x4", canon.Resize{Mode: cub, CoordTransform: ac, CubicCoeffA: -0.75, Scales: []float32{1, 1, 2, 2}}},
		{"x4", canon.Resize{Mode: lin, CoordTransform: hp, Axes: []int64{3}, Sizes: []int64{3}}},
		{"x3", canon.Resize{Mode: lin, CoordTransform: hp, Sizes: []int64{1, 2, 11}}},
		{"x3", canon.Resize{Mode: near, CoordTransform: canon.Asymmetric, Nearest: canon.Floor, Scales: []float32{1, 1, 2.5}}},
		{"x5", canon.Resize{Mode: lin, CoordTransform: hp, Sizes: []int64{1, 1, 5, 3, 9}}},
		{"x5", canon.Resize{Mode: lin, CoordTransform: ac, Sizes: []int64{1, 1, 2, 7, 4}}},
	}
	for i, c := range cases {
		op := c.op
		out := "y" + strconv.Itoa(i)
		g.Nodes = append(g.Nodes, &canon.Node{Name: "resize" + strconv.Itoa(i), Op: &op, Inputs: []string{c.in}, Outputs: []string{out}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: out})
	}
	others := []struct {
		op canon.Op
		in []string
	}{
		{&canon.GridSample{Mode: lin, Padding: canon.GridZeros}, []string{"x4", "grid4"}},
		{&canon.GridSample{Mode: lin, Padding: canon.GridBorder, AlignCorners: true}, []string{"x4", "grid4"}},
		{&canon.GridSample{Mode: near, Padding: canon.GridReflection}, []string{"x4", "grid4"}},
		{&canon.GridSample{Mode: cub, Padding: canon.GridZeros}, []string{"x4", "grid4"}},
		{&canon.GridSample{Mode: cub, Padding: canon.GridReflection, AlignCorners: true}, []string{"x4", "grid4"}},
		{&canon.GridSample{Mode: lin, Padding: canon.GridReflection}, []string{"x5", "grid5"}},
		{&canon.AffineGrid{Size: []int64{1, 3, 4, 5}}, []string{"theta"}},
		{&canon.AffineGrid{Size: []int64{1, 3, 4, 5}, AlignCorners: true}, []string{"theta"}},
		{&canon.Col2Im{ImageShape: []int64{3, 4}, BlockShape: []int64{2, 2}}, []string{"cols"}},
		{&canon.Col2Im{ImageShape: []int64{5, 6}, BlockShape: []int64{2, 3}, Strides: []int64{2, 1}, Dilations: []int64{1, 2},
			PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}}, []string{"cols2"}},
	}
	for i, c := range others {
		out := "y" + strconv.Itoa(len(cases)+i)
		g.Nodes = append(g.Nodes, &canon.Node{Name: "grid" + strconv.Itoa(i), Op: c.op, Inputs: c.in, Outputs: []string{out}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: out})
	}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	for i := range g.Outputs {
		v := g.Values.Get(g.Outputs[i].Name)
		v.Const = nil
		g.Outputs[i] = v
	}
	return g, inputs
}

var resampleInputs = []string{"x3", "x4", "x5", "grid4", "grid5", "theta", "cols", "cols2"}

// TestResizeRunsInTorch writes every Resize form model.py expresses, and
// GridSample, AffineGrid and Col2Im, runs them in PyTorch 1.13
// (F.interpolate, F.grid_sample, F.affine_grid, F.fold) and compares with
// the interpreter, which follows ONNX's definitions.
func TestResizeRunsInTorch(t *testing.T) {
	py := torchPython(t)
	g, inputs := resampleGraph(t)
	want, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "resample")
	if _, err := Export(g, dir); err != nil {
		t.Fatal(err)
	}
	for _, v := range g.Inputs {
		if err := writeNpy(filepath.Join(dir, v.Name+".npy"), inputs[v.Name]); err != nil {
			t.Fatal(err)
		}
	}
	script := `
import importlib.util, sys
import numpy as np, torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("resample_model", d + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(d + "/weights.pt"), strict=True)
ins = [torch.from_numpy(np.load(d + "/" + n + ".npy")) for n in sys.argv[2:]]
with torch.no_grad():
    outs = m(*ins)
for i, o in enumerate(outs):
    np.save(d + "/y%d.npy" % i, o.numpy())
`
	if out, err := exec.Command(py, append([]string{"-c", script, dir}, resampleInputs...)...).CombinedOutput(); err != nil {
		t.Fatalf("PyTorch failed on the exported model: %v\n%s", err, out)
	}
	for i, o := range g.Outputs {
		got, err := npy.ReadFile(filepath.Join(dir, fmt.Sprintf("y%d.npy", i)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := compare.Tensors(got, want[o.Name], 1e-4, 1e-5)
		if err != nil || !res.OK {
			t.Errorf("%s (%+v): PyTorch differs from the interpreter: %v %+v", g.Nodes[i].Name, g.Nodes[i].Op, err, res)
		}
	}
}
