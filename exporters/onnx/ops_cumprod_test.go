package onnxexport

import "testing"

// TestCumProdNodeCasesRoundTrip converts the ONNX 1.22 CumProd cases
// (exclusive, reverse, int32, run-time axis) at every opset the sweeps
// write and runs them in ONNX Runtime; below CumProd's opset 26 the export
// must be refused naming the opset.
func TestCumProdNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_cumprod_*"})
	if len(cases) < 9 {
		t.Fatalf("found %d CumProd cases, want the suite's 9", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	if runs == 0 {
		t.Error("no CumProd case ran in ONNX Runtime")
	}
	t.Logf("%d CumProd cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
