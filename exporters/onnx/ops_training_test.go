package onnxexport

import "testing"

// TestTrainingModeNodeCasesRoundTrip converts the ONNX 1.22 cases of ops
// in training mode whose result is deterministic (BatchNormalization with
// its running statistics, read as its batch-statistics expansion; Dropout with a run-time training mode and a ratio of 0) at every
// opset the sweeps write and runs them in ONNX Runtime.
func TestTrainingModeNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_batchnorm_*_training_mode", "test_training_dropout_zero_ratio*"})
	if len(cases) < 4 {
		t.Fatalf("found %d training-mode cases, want at least 2", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	if runs == 0 {
		t.Error("no training-mode case ran in ONNX Runtime")
	}
	t.Logf("%d training-mode cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
