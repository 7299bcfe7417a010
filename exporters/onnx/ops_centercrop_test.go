package onnxexport

import "testing"

// TestCenterCropPadAndSwishNodeCasesRoundTrip converts the ONNX 1.22
// CenterCropPad cases (read as Pad and Slice with run-time pads and
// bounds) and the Swish cases (read as Mul and Sigmoid) at every opset the
// sweeps write and runs them in ONNX Runtime; an opset that cannot place
// run-time pads on some axes (Pad before 18) must refuse naming it.
func TestCenterCropPadAndSwishNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_center_crop_pad_*", "test_swish*"})
	if len(cases) < 14 {
		t.Fatalf("found %d CenterCropPad and Swish cases, want the suite's 14", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d CenterCropPad and Swish cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
