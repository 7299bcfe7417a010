package onnxexport

import (
	"strings"
	"testing"
)

// TestQuantNodeCasesRoundTrip: every quantized-op case of the ONNX 1.22
// node suite that ONNX Runtime passes and the importer reads is written at
// each opset and gives the expected outputs (integers exact) in ONNX
// Runtime; an opset too old for a case is a counted refusal.
func TestQuantNodeCasesRoundTrip(t *testing.T) {
	var cases []string
	for _, c := range ortPassingCases(t) {
		for _, p := range []string{"test_quantizelinear", "test_dequantizelinear", "test_dynamicquantizelinear",
			"test_qlinearconv", "test_qlinearmatmul", "test_convinteger", "test_matmulinteger"} {
			if strings.HasPrefix(c, p) {
				cases = append(cases, c)
				break
			}
		}
	}
	if len(cases) < 28 {
		t.Fatalf("found %d quantized cases ONNX Runtime passes, want 28", len(cases))
	}
	read, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset, skipUnreadable: true}.run(t)
	t.Logf("%d quantized cases, %d read, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), read, runs, refused)
}
