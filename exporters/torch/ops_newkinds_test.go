package torchexport

import "testing"

// TestReadAsExpansionNodeCasesRunInTorch writes the ONNX 1.22 cases of
// the ops the ONNX reader writes as expansions into other canonical ops
// (CenterCropPad: Pad and Slice with run-time pads and bounds; Swish: Mul
// and Sigmoid; BatchNormalization in training mode: batch statistics and
// running averages) as model.py, runs them in PyTorch 1.13 and compares
// with the suite's outputs.
func TestReadAsExpansionNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_center_crop_pad_*", "test_swish*", "test_batchnorm_*_training_mode", "test_constant_pad_axes", "test_constant_pad_negative_axes", "test_wrap_pad", "test_training_dropout_zero_ratio*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.matched < 16 {
		t.Errorf("only %d of %d cases run in PyTorch and match", n.matched, len(models))
	}
	t.Logf("%d CenterCropPad, Swish and training-mode BatchNormalization cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}
