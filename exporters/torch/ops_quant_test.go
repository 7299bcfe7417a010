package torchexport

import "testing"

// TestQuantNodeCasesRunInTorch writes the ONNX 1.22 node cases of the
// quantized ops as model.py, runs them in PyTorch 1.13 and compares with
// the suite's outputs (integers exact). Refusals must say why by name.
func TestQuantNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_quantizelinear*", "test_dequantizelinear*", "test_dynamicquantizelinear*",
		"test_qlinearconv*", "test_qlinearmatmul*", "test_convinteger*", "test_matmulinteger*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.exported < 17 {
		t.Errorf("only %d of %d quantized cases export", n.exported, len(models))
	}
	t.Logf("%d quantized cases: %d not imported, %d run in PyTorch, %d match, %d refused", len(models), n.notImported, n.exported, n.matched, n.refused)
}
