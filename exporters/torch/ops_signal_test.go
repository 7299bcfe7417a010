package torchexport

import "testing"

// TestSignalNodeCasesRunInTorch writes the ONNX 1.22 DFT, STFT, window,
// DeformConv and MelWeightMatrix node cases as model.py, runs them in PyTorch 1.13 and
// compares with the suite's outputs. (The DFT-20 cases with a run-time
// axis input are refused by name.)
func TestSignalNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_dft*", "test_stft*", "test_hannwindow", "test_hannwindow_symmetric", "test_hammingwindow",
		"test_hammingwindow_symmetric", "test_blackmanwindow", "test_blackmanwindow_symmetric", "test_*deform_conv*", "test_melweightmatrix")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.matched < 18 {
		t.Errorf("only %d of %d signal cases run and match in PyTorch", n.matched, len(models))
	}
	t.Logf("%d signal cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}
