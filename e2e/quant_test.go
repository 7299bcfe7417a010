package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// quantCasePrefixes name the ONNX node-suite cases of the quantized ops.
var quantCasePrefixes = []string{"test_quantizelinear", "test_dequantizelinear", "test_dynamicquantizelinear",
	"test_qlinearconv", "test_qlinearmatmul", "test_convinteger", "test_matmulinteger"}

// TestQuantNodeCases runs, in the interpreter, every quantized-op case of
// the ONNX 1.22 node suite that ONNX Runtime passes; integer outputs must
// match exactly.
func TestQuantNodeCases(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	ortPass := readCaseList(t, filepath.Join(testfix.RepoRoot(), "testdata", "onnx-node-1.22-ort-pass.txt"))
	n := 0
	for name := range ortPass {
		quant := false
		for _, p := range quantCasePrefixes {
			quant = quant || strings.HasPrefix(name, p)
		}
		if !quant {
			continue
		}
		n++
		if err := runNodeCase(filepath.Join(suite, name, "model.onnx")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n < 28 {
		t.Errorf("found %d quantized cases that ONNX Runtime passes, want 28", n)
	}
	t.Logf("%d quantized node cases run", n)
}
