package onnxexport

import "testing"

// TestRecurrentNodeCasesRoundTrip: every LSTM, GRU and RNN case of the ONNX
// 1.22 node suite runs in modelbridge, is written at each opset, and gives
// the expected outputs in ONNX Runtime.
func TestRecurrentNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_lstm_*", "test_gru_*", "test_rnn_*", "test_simple_rnn_*"})
	if len(cases) < 9 {
		t.Fatalf("found %d recurrent cases, want the 9 ONNX Runtime passes", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d recurrent cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
