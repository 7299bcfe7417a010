package onnxexport

import "testing"

// TestLinalgNodeCasesRoundTrip converts the ONNX 1.22 Det cases at every
// opset the sweeps write and runs them in ONNX Runtime against the suite's
// expected outputs; opsets below Det's 11 must refuse naming the opset.
func TestLinalgNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_det_*"})
	if len(cases) < 2 {
		t.Fatalf("found %d Det cases, want the suite's 2", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d Det cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
