package torchexport

import (
	"testing"
)

// TestNormNodeCasesRunInTorch writes the ONNX 1.22 node cases of the
// normalization and pooling family as model.py, runs them in PyTorch 1.13
// and compares with the suite's outputs. Refusals must say why by name
// (LpPool with dilations, pooling with indices and uneven pads).
func TestNormNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_layer_normalization_*", "test_group_normalization_*", "test_instancenorm_*", "test_rms_normalization_*",
		"test_l1normalization_*", "test_l2normalization_*", "test_lpnormalization_*", "test_mvn*",
		"test_lppool_*", "test_globallppool*", "test_maxunpool_*", "test_maxpool_with_argmax_*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.exported < 60 {
		t.Errorf("only %d of %d normalization and pooling cases export", n.exported, len(models))
	}
	t.Logf("%d normalization and pooling cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}
