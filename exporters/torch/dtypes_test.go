package torchexport

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/interp"
)

// integerGraph pools and clips 8-bit integers, and returns outputs no node
// computes at run time: the input's shape and a weight.
func integerGraph() (*canon.Graph, map[string]*canon.Tensor) {
	xu := &canon.Tensor{Name: "xu", DType: canon.Uint8, Shape: []int64{1, 1, 4, 4}}
	xi := &canon.Tensor{Name: "xi", DType: canon.Int8, Shape: []int64{1, 1, 4, 4}}
	for i := 0; i < 16; i++ {
		xu.Data = append(xu.Data, byte(250-i*37%251)) // values up to 250
		xi.Data = append(xi.Data, byte(int8(i*29%200-100)))
	}
	w := canon.NewFloat32Tensor("w", []int64{2}, []float32{0.5, -1.25})
	pool := func(k int64, pb, pe []int64) *canon.MaxPool {
		return &canon.MaxPool{Kernel: []int64{k, k}, Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: pb, PadsEnd: pe}
	}
	shape := canon.NewShapeOf()
	g := &canon.Graph{
		Name: "ints",
		Inputs: []canon.ValueInfo{
			{Name: "xu", DType: canon.Uint8, Shape: canon.DimsOf(1, 1, 4, 4), RankKnown: true},
			{Name: "xi", DType: canon.Int8, Shape: canon.DimsOf(1, 1, 4, 4), RankKnown: true},
		},
		Initializers: []*canon.Tensor{w},
		Nodes: []*canon.Node{
			{Name: "pool_u8", Op: pool(2, []int64{0, 0}, []int64{0, 0}), Inputs: []string{"xu"}, Outputs: []string{"yu"}},
			// Unequal pads: padded with -inf after the cast to float.
			{Name: "pool_i8", Op: pool(3, []int64{1, 1}, []int64{0, 0}), Inputs: []string{"xi"}, Outputs: []string{"yi"}},
			{Name: "clip_i8", Op: &canon.Clip{Min: -30, Max: 200}, Inputs: []string{"xi"}, Outputs: []string{"yc"}},
			{Name: "shape", Op: shape, Inputs: []string{"xu"}, Outputs: []string{"ys"}},
		},
	}
	for _, o := range []string{"yu", "yi", "yc", "ys", "w"} {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
	}
	return g, map[string]*canon.Tensor{"xu": xu, "xi": xi}
}

func TestIntegerPoolCode(t *testing.T) {
	g, _ := integerGraph()
	mod, err := Generate(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"F.max_pool2d(xu.to(torch.float32), kernel_size=(2, 2)",
		".to(torch.uint8)",
		"F.pad(xi.to(torch.float32), [1, 0, 1, 0], value=float('-inf'))",
		"torch.clamp(xi, min=-30)", // 200 is beyond int8: no upper bound
		"torch.tensor(xu.shape[0:], dtype=torch.int64)",
		"self.w.clone()",
	} {
		if !strings.Contains(mod.Source, want) {
			t.Errorf("model.py lacks %q:\n%s", want, mod.Source)
		}
	}
}

// TestIntegerOpsRefused checks that ops torch computes in floating point
// only are refused on integers, naming the node and dtype.
func TestIntegerOpsRefused(t *testing.T) {
	for _, op := range []canon.Op{
		&canon.AveragePool{Kernel: []int64{2, 2}, Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}},
		&canon.Softmax{Axis: 1},
		&canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{2}, KeepDims: true},
		&canon.LeakyRelu{Alpha: 0.1},
	} {
		g := &canon.Graph{
			Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Int32, Shape: canon.DimsOf(1, 1, 4, 4), RankKnown: true}},
			Outputs: []canon.ValueInfo{{Name: "y"}},
			Nodes:   []*canon.Node{{Name: "int_node", Op: op, Inputs: []string{"x"}, Outputs: []string{"y"}}},
		}
		_, err := Generate(g)
		if err == nil || !strings.Contains(err.Error(), `"int_node"`) || !strings.Contains(err.Error(), "i32") {
			t.Errorf("%s on int32: want an error naming the node and dtype, got %v", op.Kind(), err)
		}
	}
	g, _ := integerGraph()
	g.Inputs[0].DType = canon.Int64
	if _, err := Generate(g); err == nil || !strings.Contains(err.Error(), `"pool_u8"`) {
		t.Errorf("int64 max pool: want a refusal naming pool_u8, got %v", err)
	}
}

// TestIntegerOpsRunInTorch runs the exported integer graph with real
// PyTorch and compares every output, dtype included, with the interpreter.
func TestIntegerOpsRunInTorch(t *testing.T) {
	py := torchPython(t)
	g, inputs := integerGraph()
	want, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ints")
	if _, err := Export(g, dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"xu", "xi"} {
		if err := writeNpy(filepath.Join(dir, name+".npy"), inputs[name]); err != nil {
			t.Fatal(err)
		}
	}
	script := `
import importlib.util, sys
import numpy as np, torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("ints_model", d + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(d + "/weights.pt"), strict=True)
with torch.no_grad():
    outs = m(torch.from_numpy(np.load(d + "/xu.npy")), torch.from_numpy(np.load(d + "/xi.npy")))
for i, o in enumerate(outs):
    np.save(d + "/out%d.npy" % i, np.ascontiguousarray(o.numpy()))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("PyTorch failed on the exported model: %v\n%s", err, out)
	}
	for i, o := range g.Outputs {
		got, err := npy.ReadFile(filepath.Join(dir, "out"+string(rune('0'+i))+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		w := want[o.Name]
		if got.DType != w.DType {
			t.Errorf("output %s: dtype %s, want %s", o.Name, got.DType, w.DType)
			continue
		}
		res, err := compare.Tensors(got, w, 0, 0)
		if err != nil || !res.OK {
			t.Errorf("output %s differs from the interpreter: %v %+v", o.Name, err, res)
		}
	}
}
