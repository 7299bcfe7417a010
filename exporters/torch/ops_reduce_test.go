package torchexport

import (
	"testing"
)

// TestReduceNodeCasesRunInTorch writes the ONNX 1.22 node cases of the
// reduce family (every Reduce*, ArgMax/ArgMin with select_last_index,
// CumSum, TopK) as model.py, runs them in PyTorch 1.13 and compares with
// the suite's outputs, including cases whose axes or k arrive at run time.
func TestReduceNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	// Not imported: IR versions beyond the reader's, ops of other families.
	models := nodeCaseModels(t, "test_reduce_*", "test_argmax_*", "test_argmin_*", "test_cumsum_*", "test_top_k*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.exported < 35 {
		t.Errorf("only %d of %d reduce cases export", n.exported, len(models))
	}
	t.Logf("%d reduce cases: %d run in PyTorch, %d match, %d refused (run-time parameters)", len(models), n.exported, n.matched, n.refused)
}
