package onnxexport

import (
	"testing"

	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

// TestDetectionNodeCasesRoundTrip: the NonMaxSuppression cases ONNX Runtime
// passes, and the RoiAlign cases, are written at each opset and give the
// expected outputs in ONNX Runtime (half_pixel RoiAlign is refused below
// opset 16 by name). The RoiAlign cases are opset 22, read from IR 10.
func TestDetectionNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_nonmaxsuppression_*"})
	if len(cases) != 10 {
		t.Fatalf("found %d NonMaxSuppression cases, want 10", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d NonMaxSuppression cases, %d runs in ONNX Runtime, %d refused", len(cases), runs, refused)
	if onnximport.MaxOpset < 22 {
		t.Skipf("the ONNX importer reads up to opset %d; the RoiAlign cases are opset 22", onnximport.MaxOpset)
	}
	// ONNX Runtime's max mode differs from ONNX's reference
	// (test_roialign_mode_max is not in its passing list): avg only.
	roi := []string{"test_roialign_aligned_false", "test_roialign_aligned_true"}
	_, runs, refused = nodeRoundTrip{cases: roi, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d RoiAlign cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(roi), runs, refused)
}
