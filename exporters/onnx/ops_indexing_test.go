package onnxexport

import (
	"testing"
)

// TestIndexingNodeCasesRoundTrip converts the ONNX 1.22 node cases of the
// indexing family at opsets 11 to 17 and runs them in ONNX Runtime against
// the suite's expected outputs. A refusal (an opset that cannot express
// a reduction, say) must name the opset; everything written must match.
func TestIndexingNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_gather_elements_*", "test_gathernd_*", "test_scatter_*", "test_scatternd*", "test_onehot_*", "test_compress_*", "test_tril*", "test_triu*"})
	if len(cases) < 40 {
		t.Fatalf("found %d indexing cases, want the suite's 46", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d indexing cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
