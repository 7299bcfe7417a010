package testfix

import (
	"path/filepath"
	"regexp"
	"testing"
)

// sequenceCaseNames matches the ONNX node suite's cases whose models make,
// read or carry sequences and optionals.
var sequenceCaseNames = regexp.MustCompile(`^test_(sequence_|split_to_sequence|optional_|identity_sequence|identity_opt|if_seq|if_opt|loop13_seq|loop16_seq_none)`)

// SequenceNodeCases returns the folders of the ONNX 1.22 node suite's
// sequence and optional cases (with the If and Loop cases that carry such
// values), in name order, and fails the test when the suite holds fewer
// than minCases of them (an incomplete fixture folder).
func SequenceNodeCases(t testing.TB, minCases int) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(Fixtures(t), "onnx-node-1.22", "test_*"))
	var cases []string
	for _, dir := range dirs {
		if sequenceCaseNames.MatchString(filepath.Base(dir)) {
			cases = append(cases, dir)
		}
	}
	if len(cases) < minCases {
		t.Fatalf("only %d sequence and optional cases found in the node suite, want at least %d", len(cases), minCases)
	}
	return cases
}
