package onnxexport

import "testing"

// TestAffineGridExpandedRoundTrip converts the ONNX 1.22 AffineGrid
// function-expansion cases, whose If branches split a tensor of run-time
// shape into equal parts (read as a Split with sizes computed from the
// shape), at every opset the sweeps write and runs them in ONNX Runtime.
func TestAffineGridExpandedRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_affine_grid_*_expanded"})
	if len(cases) < 4 {
		t.Fatalf("found %d AffineGrid expanded cases, want the suite's 4", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	if runs == 0 {
		t.Error("no AffineGrid expanded case ran in ONNX Runtime")
	}
	t.Logf("%d AffineGrid expanded cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
