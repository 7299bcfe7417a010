package onnxexport

import (
	"slices"
	"testing"
)

// TestBitCastNodeCasesRoundTrip converts the ONNX 1.22 BitCast cases that
// ONNX Runtime runs (it has no kernel for bool input) at every opset the
// sweeps write; below BitCast's opset 26 the export must be refused naming
// the opset.
func TestBitCastNodeCasesRoundTrip(t *testing.T) {
	ort := ortPassingCases(t)
	var cases []string
	for _, c := range nodeCasesMatching(t, []string{"test_bitcast_*"}) {
		if slices.Contains(ort, c) {
			cases = append(cases, c)
		}
	}
	if len(cases) < 9 {
		t.Fatalf("found %d BitCast cases ONNX Runtime runs, want 9", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	if runs == 0 {
		t.Error("no BitCast case ran in ONNX Runtime")
	}
	t.Logf("%d BitCast cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
