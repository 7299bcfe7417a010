package onnxexport

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/testfix"
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

// TestORTControlFlowExamples writes canon's If, Loop and Scan examples,
// whose subgraphs read outer values under names of their own, at every
// opset, and checks ONNX Runtime's outputs against the interpreter's.
func TestORTControlFlowExamples(t *testing.T) {
	tmp := t.TempDir()
	var jobs []*interpJob
	for _, kind := range []string{"If", "Loop", "Scan"} {
		g, err := canon.Lookup(kind).ExampleGraph()
		if err != nil {
			t.Fatal(err)
		}
		for _, opset := range withNative(allOpsets(), exports[kind].native) {
			label := fmt.Sprintf("%s@%d", kind, opset)
			if j := addInterpJob(t, g, opset, filepath.Join(tmp, label), label, len(jobs)); j != nil {
				jobs = append(jobs, j)
			}
		}
	}
	checkInterpJobs(t, testfix.ORT(t), jobs)
}
