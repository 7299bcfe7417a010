package onnxexport

import (
	"strings"
	"testing"
)

// resampleCases are the ONNX 1.22 node cases of the resampling family that
// ONNX Runtime itself passes.
func resampleCases(t *testing.T) []string {
	var out []string
	for _, c := range ortPassingCases(t) {
		for _, p := range []string{"test_resize_", "test_upsample_"} {
			if strings.HasPrefix(c, p) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// TestResampleNodeCasesRoundTrip writes the resampling node cases at every
// opset the exporter targets and runs them in ONNX Runtime against the
// suite's expected outputs. A mode an opset lacks (antialias and axes
// before 18, half_pixel_symmetric before 19) must be refused by name.
func TestResampleNodeCasesRoundTrip(t *testing.T) {
	cases := resampleCases(t)
	if len(cases) < 38 {
		t.Fatalf("found %d resampling cases, want ONNX Runtime's 38 Resize/Upsample cases at least", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d resampling cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
