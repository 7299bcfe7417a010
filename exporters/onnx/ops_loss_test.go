package onnxexport

import "testing"

// TestLossNodeCasesRoundTrip converts the ONNX 1.22 NegativeLogLikelihoodLoss
// and SoftmaxCrossEntropyLoss cases (weights, ignore_index, every
// reduction, log_prob, rank > 2, and their function expansions) at every
// opset the sweeps write and runs them in ONNX Runtime against the suite's
// expected outputs. Below opset 12 the loss must be refused naming the
// opset.
func TestLossNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_nllloss_*", "test_sce_*"})
	if len(cases) < 100 {
		t.Fatalf("found %d loss cases, want the suite's 104", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d loss cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}
