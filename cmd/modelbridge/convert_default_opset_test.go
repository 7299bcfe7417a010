package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestConvertDefaultOpsetRaised: a model that opset 13 cannot express (a
// Loop carrying an optional sequence needs 16) converts without --opset at
// the lowest opset that expresses it, said on stderr; --opset 13 still
// refuses it.
func TestConvertDefaultOpsetRaised(t *testing.T) {
	model := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22", "test_loop16_seq_none", "model.onnx")
	dir := t.TempDir()
	code, _, stderr := cli(t, "convert", model, filepath.Join(dir, "default.onnx"))
	if code != 0 || !strings.Contains(stderr, "writing ONNX opset 16, the lowest newer than the default 13") {
		t.Errorf("convert without --opset: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = cli(t, "convert", model, filepath.Join(dir, "asked.onnx"), "--opset", "13")
	if code == 0 || !strings.Contains(stderr, "needs ONNX opset 16") {
		t.Errorf("convert --opset 13: exit %d, want a refusal naming opset 16: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "check", model, filepath.Join(dir, "default.onnx"), "--inputs", filepath.Join(filepath.Dir(model), "test_data_set_0")); code != 0 {
		t.Errorf("check of the converted model: exit %d: %s", code, stderr)
	}
}
