package onnxexport

import "testing"

// TestStringOpsInORT writes the node cases of the string ops, Equal on
// strings and TfIdfVectorizer at every opset from the oldest to the
// newest that changes them, runs them in ONNX Runtime and compares with
// the suite's outputs (strings byte for byte). Below an op's opset the
// export is refused, naming the opset.
func TestStringOpsInORT(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_string_*", "test_regex_full_match_*", "test_equal_string*",
		"test_strnormalizer_*", "test_tfidfvectorizer_*"})
	ortRuns := map[string]bool{}
	for _, c := range ortPassingCases(t) {
		ortRuns[c] = true
	}
	var run []string
	for _, c := range cases {
		if ortRuns[c] { // the StringNormalizer cases with a case change need a locale ONNX Runtime's host lacks
			run = append(run, c)
		}
	}
	if len(run) < 25 {
		t.Fatalf("only %d string cases found", len(run))
	}
	rt := nodeRoundTrip{cases: run, opsets: []int{MinOpset, 18, 19, 20, MaxOpset}, refusal: refusedByOpset}
	read, runs, refused := rt.run(t)
	t.Logf("%d string cases read, %d ONNX Runtime runs, %d case×opset pairs refused by opset", read, runs, refused)
}
