package torchexport

import (
	bin "encoding/binary"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/interp"
)

// paramCasePatterns are the ONNX 1.22 node cases of ops whose parameters
// may arrive as run-time inputs (TopK's k, OneHot's depth, Reduce axes,
// Trilu's k, CumSum's axis, Clip's bounds, Expand's shape, Tile's repeats,
// Squeeze/Unsqueeze axes, Slice, Pad, Split and Reshape).
var paramCasePatterns = []string{"test_reduce_*", "test_top_k*", "test_onehot_*", "test_tril*", "test_triu*",
	"test_cumsum_*", "test_clip*", "test_expand*", "test_tile*", "test_squeeze*", "test_unsqueeze*", "test_slice*",
	"test_constant_pad*", "test_reflect_pad*", "test_edge_pad*", "test_wrap_pad*", "test_split_*", "test_reshape_*"}

// TestRuntimeParamNodeCasesRunInTorch writes those cases as model.py, runs
// them in PyTorch 1.13 and compares with the suite's outputs: parameters
// computed at run time are read by the Python code when it runs.
func TestRuntimeParamNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, paramCasePatterns...)
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	// 33 matched when model.py took parameters only as constants.
	if n.exported < 200 {
		t.Errorf("only %d of %d cases export", n.exported, len(models))
	}
	t.Logf("%d run-time parameter cases: %d not imported, %d refused, %d run in PyTorch, %d match", len(models), n.notImported, n.refused, n.exported, n.matched)
}

// TestIntegerModePadsRunInTorch: torch pads in reflect and replicate mode
// only in floating point, so model.py pads int32 data through float64 (with
// the pads as attributes and as a run-time input) and must match the
// interpreter exactly.
func TestIntegerModePadsRunInTorch(t *testing.T) {
	py := torchPython(t)
	x := &canon.Tensor{Name: "x", DType: canon.Int32, Shape: []int64{1, 1, 3, 4}}
	for i := range 12 {
		x.Data = bin.LittleEndian.AppendUint32(x.Data, uint32(int32(i*7-40)))
	}
	pads := canon.NewInt64Tensor("pads", []int64{8}, []int64{0, 0, 2, 1, 0, 0, 1, 3})
	g := &canon.Graph{
		Name: "intpads",
		Inputs: []canon.ValueInfo{
			{Name: "x", DType: canon.Int32, Shape: canon.DimsOf(1, 1, 3, 4), RankKnown: true},
			{Name: "pads", DType: canon.Int64, Shape: canon.DimsOf(8), RankKnown: true},
		},
		Outputs: []canon.ValueInfo{{Name: "r"}, {Name: "e"}, {Name: "rp"}},
		Nodes: []*canon.Node{
			{Name: "reflect", Op: &canon.Pad{Mode: canon.PadReflect, PadsBegin: []int64{0, 0, 2, 1}, PadsEnd: []int64{0, 0, 1, 3}}, Inputs: []string{"x"}, Outputs: []string{"r"}},
			{Name: "edge", Op: &canon.Pad{Mode: canon.PadEdge, PadsBegin: []int64{0, 0, 2, 1}, PadsEnd: []int64{0, 0, 1, 3}}, Inputs: []string{"x"}, Outputs: []string{"e"}},
			{Name: "reflect_param", Op: &canon.Pad{Mode: canon.PadReflect}, Inputs: []string{"x", "pads"}, Outputs: []string{"rp"}},
		},
	}
	canon.AssignLayouts(g)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	want, err := interp.Run(g, map[string]*canon.Tensor{"x": x, "pads": pads})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "intpads")
	if _, err := Export(g, dir); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]*canon.Tensor{"x": x, "pads": pads} {
		if err := writeNpy(filepath.Join(dir, name+".npy"), v); err != nil {
			t.Fatal(err)
		}
	}
	script := `
import importlib.util, sys
import numpy as np, torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("intpads_model", d + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(d + "/weights.pt"), strict=True)
outs = m(torch.from_numpy(np.load(d + "/x.npy")), torch.from_numpy(np.load(d + "/pads.npy")))
for i, o in enumerate(outs):
    np.save(d + "/out%d.npy" % i, np.ascontiguousarray(o.numpy()))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("PyTorch failed on the exported model: %v\n%s", err, out)
	}
	for i, o := range g.Outputs {
		got, err := npy.ReadFile(filepath.Join(dir, "out"+strconv.Itoa(i)+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		if res, err := compare.Tensors(got, want[o.Name], 0, 0); err != nil || !res.OK || got.DType != canon.Int32 {
			t.Errorf("output %s: %s, differs from the interpreter: %v %+v", o.Name, got.DType, err, res)
		}
	}
}
