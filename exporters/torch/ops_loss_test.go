package torchexport

import "testing"

// TestLossNodeCasesRunInTorch writes the ONNX 1.22 node cases of the loss
// family (NegativeLogLikelihoodLoss, and SoftmaxCrossEntropyLoss read as
// LogSoftmax then NegativeLogLikelihoodLoss: weights, ignore_index,
// reductions, log_prob, rank > 2) as model.py, runs them in PyTorch 1.13
// and compares with the suite's outputs, plus the Det, CumProd and BitCast cases (PyTorch 1.13 lacks the unsigned dtypes beyond uint8: refused).
func TestLossNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_nllloss_*", "test_sce_*", "test_det_*", "test_cumprod_*", "test_bitcast_*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.matched < 120 {
		t.Errorf("only %d of %d loss, Det, CumProd and BitCast cases run in PyTorch and match", n.matched, len(models))
	}
	t.Logf("%d loss, Det, CumProd and BitCast cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}
