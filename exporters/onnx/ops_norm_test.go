package onnxexport

import (
	"path/filepath"
	"testing"
)

// TestNormNodeCasesRoundTrip converts the ONNX 1.22 node cases of the
// normalization and pooling family that ONNX Runtime passes, at every
// opset the exporter writes, and runs them in ONNX Runtime against the
// suite's expected outputs: below an op's opset its expansion runs. A
// refusal must name the opset that expresses the op.
func TestNormNodeCasesRoundTrip(t *testing.T) {
	ort := map[string]bool{}
	for _, c := range ortPassingCases(t) {
		ort[c] = true
	}
	var cases []string
	for _, c := range nodeCasesMatching(t, []string{"test_layer_normalization_*", "test_group_normalization_*", "test_instancenorm_*",
		"test_rms_normalization_*", "test_l1normalization_*", "test_l2normalization_*", "test_lpnormalization_*", "test_mvn*",
		"test_lppool_*", "test_globallppool*", "test_maxunpool_*", "test_maxpool_with_argmax_*"}) {
		if ort[c] && filepath.Ext(c) == "" {
			cases = append(cases, c)
		}
	}
	if len(cases) < 60 {
		t.Fatalf("found %d normalization and pooling cases ONNX Runtime passes, want over 60", len(cases))
	}
	read, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset, skipUnreadable: true}.run(t)
	t.Logf("%d cases (%d read), %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), read, runs, refused)
}
