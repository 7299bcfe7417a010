package onnxexport

import "testing"

// TestTensorScatterNodeCasesRoundTrip converts the ONNX 1.22 TensorScatter
// cases (linear, circular, 3-D) at every opset the sweeps write and runs
// them in ONNX Runtime; below TensorScatter's opset 24 the export must be
// refused naming the opset.
func TestTensorScatterNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_tensorscatter*"})
	if len(cases) < 3 {
		t.Fatalf("found %d TensorScatter cases, want the suite's 3", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	if runs == 0 {
		t.Error("no TensorScatter case ran in ONNX Runtime")
	}
	t.Logf("%d TensorScatter cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
