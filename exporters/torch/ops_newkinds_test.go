package torchexport

import "testing"

// TestCenterCropPadAndSwishNodeCasesRunInTorch writes the ONNX 1.22
// CenterCropPad cases (Pad and Slice with run-time pads and bounds) and
// Swish cases as model.py, runs them in PyTorch 1.13 and compares with the
// suite's outputs.
func TestCenterCropPadAndSwishNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_center_crop_pad_*", "test_swish*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.matched < 14 {
		t.Errorf("only %d of %d CenterCropPad and Swish cases run in PyTorch and match", n.matched, len(models))
	}
	t.Logf("%d CenterCropPad and Swish cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}
