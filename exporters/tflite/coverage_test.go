package tfliteexport

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Every canonical op kind is written or refused with a reason.
func TestCoverageNamesEveryOp(t *testing.T) {
	cov := Ops()
	for _, g := range canon.Gaps(map[string]canon.Coverage{"tflite write": cov}) {
		t.Error(g)
	}
	for k := range cov {
		if canon.Lookup(k) == nil {
			t.Errorf("op table names %q, which is not a canonical op", k)
		}
	}
}
