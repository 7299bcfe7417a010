package torchexport

import "testing"

// TestDetectionNodeCasesRunInTorch writes the ONNX 1.22 NonMaxSuppression
// and RoiAlign node cases (avg and max) as model.py, runs them in PyTorch
// 1.13 and compares with the suite's outputs.
func TestDetectionNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_nonmaxsuppression_*", "test_roialign_*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.matched < 13 {
		t.Errorf("only %d of %d detection cases run and match in PyTorch", n.matched, len(models))
	}
	t.Logf("%d detection cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}
