package torchexport

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestIndexingNodeCasesRunInTorch writes the ONNX 1.22 node cases of the
// indexing family (every scatter reduction, batch_dims, OneHot axes and
// negative indices, Compress with and without an axis, Trilu) as model.py,
// runs them in PyTorch 1.13 and compares with the suite's outputs,
// including cases whose parameters arrive at run time (Trilu's k,
// OneHot's depth).
func TestIndexingNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_gather_elements_*", "test_gathernd_*", "test_scatter_*", "test_scatternd*", "test_onehot_*", "test_compress_*", "test_tril*", "test_triu*")
	n := torchSweep{models: models, strictImport: true, refusalOK: isUnsupported}.run(t, py)
	if n.exported < 25 {
		t.Errorf("only %d of %d indexing cases export", n.exported, len(models))
	}
	t.Logf("%d indexing cases: %d run in PyTorch, %d match, %d refused (run-time parameters)", len(models), n.exported, n.matched, n.refused)
}

// TestScatterNDChecksEachIndexComponent exports ScatterND into 4×4 data with
// index tuples given as a graph input and runs model.py in PyTorch: tuple
// [1, 2] scatters where ONNX puts it, and [0, 5], whose row number (5) is
// inside the data but whose column is not, raises instead of writing row 1.
func TestScatterNDChecksEachIndexComponent(t *testing.T) {
	py := torchPython(t)
	g := &canon.Graph{
		Name: "scatternd",
		Inputs: []canon.ValueInfo{
			{Name: "data", DType: canon.Float32, Shape: canon.DimsOf(4, 4), RankKnown: true},
			{Name: "idx", DType: canon.Int64, Shape: canon.DimsOf(1, 2), RankKnown: true},
		},
		Outputs:      []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
		Initializers: []*canon.Tensor{canon.NewFloat32Tensor("upd", []int64{1}, []float32{9})},
		Nodes:        []*canon.Node{{Name: "ScatterND_0", Op: &canon.ScatterND{}, Inputs: []string{"data", "idx", "upd"}, Outputs: []string{"y"}}},
	}
	canon.AssignLayouts(g)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "scatternd")
	if _, err := Export(g, dir); err != nil {
		t.Fatal(err)
	}
	script := `
import importlib.util, sys
import torch
spec = importlib.util.spec_from_file_location("scatternd_model", sys.argv[1] + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(sys.argv[1] + "/weights.pt"), strict=True)
y = m(torch.zeros(4, 4), torch.tensor([[1, 2]]))
assert y[1, 2] == 9 and y.sum() == 9, y
try:
    m(torch.zeros(4, 4), torch.tensor([[0, 5]]))
except IndexError as e:
    print("refused:", e)
else:
    raise SystemExit("index [0, 5] into 4x4 data was accepted")
`
	out, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "refused: ScatterND") {
		t.Fatalf("unexpected output: %s", out)
	}
}
