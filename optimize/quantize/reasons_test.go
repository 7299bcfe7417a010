package quantize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestReasonKinds: the reasons tables name canonical kinds only (an entry
// under another name would never be looked up).
func TestReasonKinds(t *testing.T) {
	for name, table := range map[string]map[string]string{"floatReasons": floatReasons, "dynamicFloatReasons": dynamicFloatReasons} {
		for kind := range table {
			if canon.Lookup(kind) == nil {
				t.Errorf("%s: %q is not a canonical op kind", name, kind)
			}
		}
	}
}
