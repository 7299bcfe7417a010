package printname

import (
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"conv1":        "conv1",
		"a\nb":         `a\nb`,
		"\x1b[2Jx":     `\x1b[2Jx`,
		"bad\xffutf8":  `bad\xffutf8`,
		"résumé\u0085": `résumé\x85`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
	huge := strings.Repeat("é", 1<<19) // 1 MB
	got := Name(huge)
	if len(got) > MaxBytes+40 || !strings.Contains(got, "…") || !strings.HasPrefix(got, "éé") || !strings.HasSuffix(got, "éé") {
		t.Errorf("a 1 MB name printed as %d bytes: %.80q", len(got), got)
	}
	msg := `node "` + strings.Repeat("x", 1<<20) + `" (Relu): bad input`
	if got := Runs(msg, MaxBytes); len(got) > 400 || !strings.HasSuffix(got, "(Relu): bad input") {
		t.Errorf("Runs kept %d bytes: %.100q", len(got), got)
	}
}
