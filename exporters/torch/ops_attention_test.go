package torchexport

import (
	"strings"
	"testing"

	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

// TestAttentionNodeCasesRunInTorch writes the ONNX 1.22 Attention and
// RotaryEmbedding node cases as model.py, runs them in PyTorch 1.13 and
// compares with the suite's outputs.
func TestAttentionNodeCasesRunInTorch(t *testing.T) {
	if onnximport.MaxOpset < 23 || onnximport.MaxIRVersion < 11 {
		t.Skipf("the ONNX importer reads up to opset %d and IR version %d; these cases are opset 23, IR 11", onnximport.MaxOpset, onnximport.MaxIRVersion)
	}
	py := torchPython(t)
	var models []string
	for _, m := range nodeCaseModels(t, "test_attention_*", "test_rotary_embedding*") {
		// The expanded cases are other ops; the padded-kv case is opset 24.
		if !strings.Contains(m, "_expanded") && !strings.Contains(m, "padded_kv") {
			models = append(models, m)
		}
	}
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.matched < 71 {
		t.Errorf("only %d of %d attention cases run and match in PyTorch", n.matched, len(models))
	}
	t.Logf("%d attention cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}
