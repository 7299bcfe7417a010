package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A ticking bar draws without any progress report once its delay has
// passed, and stops drawing at Finish.
func TestTickDrawsWithoutProgress(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "optimizing", Tick: true, Delay: 10 * time.Millisecond, Interval: 5 * time.Millisecond})
	time.Sleep(60 * time.Millisecond)
	b.Finish()
	out := buf.String()
	if !strings.Contains(out, "optimizing ") || strings.Contains(out, "optimizing 0") {
		t.Fatalf("ticking bar drew %q", out)
	}
	n := len(out)
	time.Sleep(20 * time.Millisecond)
	if len(buf.String()) != n {
		t.Error("the bar drew after Finish")
	}
}
