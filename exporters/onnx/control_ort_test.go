package onnxexport

import (
	"strings"
	"testing"
)

// TestORTControlFlowRoundTrip writes the node suite's If, Loop and Scan
// cases with the exporter (subgraphs, captures and all) at several opsets
// and runs them in ONNX Runtime against the suite's expected outputs.
func TestORTControlFlowRoundTrip(t *testing.T) {
	cases := []string{"test_if", "test_loop11", "test_scan9_multi_state", "test_scan9_scalar", "test_scan9_sum", "test_scan_sum",
		"test_range_float_type_positive_delta_expanded", "test_range_int32_type_negative_delta_expanded",
		"test_optional_get_element_tensor", "test_optional_has_element_empty_no_input_tensor_input"}
	rt := nodeRoundTrip{cases: cases, opsets: []int{11, 13, 17, MaxOpset}, refusal: func(_ string, _ int, err error) bool {
		return isRefusal(err) || strings.Contains(err.Error(), "ONNX cannot express this op")
	}}
	read, runs, refused := rt.run(t)
	if read != len(cases) {
		t.Errorf("%d of %d cases read", read, len(cases))
	}
	t.Logf("%d control-flow cases written and run in ONNX Runtime: %d runs (%d refused by opset)", read, runs, refused)
}
