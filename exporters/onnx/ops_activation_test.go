package onnxexport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// activationCasePrefixes select the ONNX 1.22 node cases of the activation
// family.
var activationCasePrefixes = []string{"test_logsoftmax", "test_hardmax", "test_celu", "test_mish",
	"test_thresholdedrelu", "test_shrink", "test_einsum"}

// TestActivationNodeCasesRoundTrip writes every activation-family node case
// ONNX Runtime passes at opsets 11, 13 and 17 and runs the result in ONNX
// Runtime against the suite's expected outputs. Einsum at opset 11 must be
// refused naming the op and the opset.
func TestActivationNodeCasesRoundTrip(t *testing.T) {
	var cases []string
	for _, c := range ortPassingCases(t) {
		for _, p := range activationCasePrefixes {
			if strings.HasPrefix(c, p) {
				cases = append(cases, c)
				break
			}
		}
	}
	einsumAt11 := func(c string, opset int, err error) bool {
		return strings.HasPrefix(c, "test_einsum") && opset == 11 && strings.Contains(err.Error(), "(Einsum)") && strings.Contains(err.Error(), "opset 12")
	}
	_, runs, _ := nodeRoundTrip{cases: cases, opsets: []int{11, 13, 17}, refusal: einsumAt11}.run(t)
	t.Logf("%d activation-family cases; %d runs in ONNX Runtime", len(cases), runs)
}

// TestEinsumRefusedBelowOpset12: ONNX has no Einsum before opset 12.
func TestEinsumRefusedBelowOpset12(t *testing.T) {
	g, err := canon.Lookup("Einsum").ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	err = Write(g, filepath.Join(t.TempDir(), "e.onnx"), formats.WriteOptions{Opset: 11})
	if err == nil || !strings.Contains(err.Error(), "Einsum") || !strings.Contains(err.Error(), "opset 12") {
		t.Fatalf("got %v, want a refusal naming Einsum and opset 12", err)
	}
}
