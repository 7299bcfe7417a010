package onnxexport

import "testing"

// TestPadAxesAndWrapNodeCasesRoundTrip converts the ONNX 1.22 Pad cases
// with run-time axes (Pad-18's axes input, negative entries included) and
// wrap mode (Pad-19) at every opset the sweeps write and runs them in ONNX
// Runtime; older opsets must refuse naming the opset they need.
func TestPadAxesAndWrapNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_constant_pad_axes", "test_constant_pad_negative_axes", "test_wrap_pad"})
	if len(cases) < 3 {
		t.Fatalf("found %d Pad cases, want the suite's 3", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	if runs == 0 {
		t.Error("no Pad case ran in ONNX Runtime")
	}
	t.Logf("%d Pad cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
