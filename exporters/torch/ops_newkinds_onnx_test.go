package torchexport

import "testing"

// TestNewKindNodeCasesRunInTorch writes the ONNX 1.22 node cases of the
// canonical kinds NegativeLogLikelihoodLoss (with SoftmaxCrossEntropyLoss
// read as LogSoftmax then it: weights, ignore_index, reductions, log_prob,
// rank > 2), Det, CumProd, BitCast and TensorScatter as model.py, runs them
// in PyTorch 1.13 and compares with the suite's outputs. PyTorch 1.13 has
// no uint16 or uint32 tensors, so those BitCast cases are refused.
func TestNewKindNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_nllloss_*", "test_sce_*", "test_det_*", "test_cumprod_*", "test_bitcast_*", "test_tensorscatter*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.matched < 126 {
		t.Errorf("only %d of %d cases run in PyTorch and match", n.matched, len(models))
	}
	t.Logf("%d NLL/SCE loss, Det, CumProd, BitCast and TensorScatter cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}
