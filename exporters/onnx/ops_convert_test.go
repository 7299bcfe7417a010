package onnxexport

import (
	"testing"
)

// TestConvertNodeCasesRoundTrip converts the ONNX 1.22 node cases of the
// convert family that modelbridge reads (Cast, CastLike, Where, Expand,
// Tile, Size, the comparisons) at opsets 11 to 17 and runs them in ONNX
// Runtime against the suite's expected outputs. Cases the importer refuses
// (IR 13 files, strings, float8, ops of other families) are skipped; a
// refusal at export must name the opset.
func TestConvertNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_cast_*", "test_castlike_*", "test_where_*", "test_expand_*", "test_tile*", "test_size*",
		"test_equal*", "test_less*", "test_greater*"})
	read, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), skipUnreadable: true, refusal: refusedByOpset}.run(t)
	if read < 40 {
		t.Fatalf("read %d convert-family cases, want at least 40", read)
	}
	t.Logf("%d convert cases read, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", read, runs, refused)
}
