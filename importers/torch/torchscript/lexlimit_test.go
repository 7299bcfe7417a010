package torchscript

import (
	"runtime"
	"strings"
	"testing"
)

// A long operator chain is refused while lexing, before its tokens cost
// more than a few MB (it used to cost about 100 bytes per source byte).
func TestLongStatementRefusedEarly(t *testing.T) {
	src := "def forward(self, x):\n    return " + strings.Repeat("1+", 5<<20) + "1\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := parseSource("code/__torch__.py", src)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "tokens") {
		t.Fatalf("got %v, want a refusal of the long statement", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("refusing a %d MB line allocated %d MB", len(src)>>20, d>>20)
	}
}
