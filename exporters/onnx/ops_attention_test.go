package onnxexport

import (
	"testing"

	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

// TestAttentionNodeCasesRoundTrip: every Attention and RotaryEmbedding
// case of the ONNX 1.22 node suite that ONNX Runtime passes runs in
// modelbridge, is written at each opset (the expansion below 23) and gives
// the expected outputs in ONNX Runtime.
func TestAttentionNodeCasesRoundTrip(t *testing.T) {
	if onnximport.MaxOpset < 23 || onnximport.MaxIRVersion < 11 {
		t.Skipf("the ONNX importer reads up to opset %d and IR version %d; these cases are opset 23, IR 11", onnximport.MaxOpset, onnximport.MaxIRVersion)
	}
	ort := map[string]bool{}
	for _, c := range ortPassingCases(t) {
		ort[c] = true
	}
	var cases []string
	for _, c := range nodeCasesMatching(t, []string{"test_attention_*", "test_rotary_embedding*"}) {
		if ort[c] && !isExpandedCase(c) {
			cases = append(cases, c)
		}
	}
	if len(cases) < 70 {
		t.Fatalf("found %d Attention and RotaryEmbedding cases ONNX Runtime passes, want 71", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d attention cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}

func isExpandedCase(c string) bool {
	return len(c) > 9 && c[len(c)-9:] == "_expanded"
}
