package e2e

import (
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestRecurrentNodeCases runs every LSTM, GRU and RNN case of the ONNX
// 1.22 node suite in the interpreter, batch-first layouts (which ONNX
// Runtime does not implement) included.
func TestRecurrentNodeCases(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	var cases []string
	for _, pat := range []string{"test_lstm_*", "test_gru_*", "test_rnn_*", "test_simple_rnn_*"} {
		m, _ := filepath.Glob(filepath.Join(suite, pat, "model.onnx"))
		cases = append(cases, m...)
	}
	if len(cases) < 12 {
		t.Fatalf("found %d recurrent cases under %s, want 12", len(cases), suite)
	}
	for _, model := range cases {
		if err := runNodeCase(model); err != nil {
			t.Errorf("%s: %v", filepath.Base(filepath.Dir(model)), err)
		}
	}
}
