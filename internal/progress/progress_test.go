package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time       { return c.t }
func (c *clock) step(d time.Duration) { c.t = c.t.Add(d) }

func TestRenderCountsAndBytes(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "writing", Total: 4 << 20, Unit: Bytes, Width: 10, Now: c.now})
	c.step(1500 * time.Millisecond)
	b.Set(1 << 20)
	got := buf.String()
	want := "\rwriting [==>       ]  25% 1.0 MiB/4.0 MiB 1.5s"
	if got != want {
		t.Fatalf("drawn %q, want %q", got, want)
	}
	b.Set(4 << 20) // within the redraw interval: not drawn yet
	if buf.String() != want {
		t.Fatalf("redrew within the interval: %q", buf.String())
	}
	c.step(time.Second)
	b.Add(0)
	if !strings.Contains(buf.String(), "[==========] 100% 4.0 MiB/4.0 MiB 2.5s") {
		t.Fatalf("full bar: %q", buf.String())
	}
	b.Finish()
	if !strings.HasSuffix(buf.String(), "\r") {
		t.Fatalf("Finish did not clear the line: %q", buf.String())
	}
	b.Finish()
	b.Set(1) // after Finish nothing more is drawn
	if strings.Count(buf.String(), "\r") != 4 {
		t.Fatalf("drawn after Finish: %q", buf.String())
	}

	n := New(io.Discard, Options{Label: "samples", Total: 3, Width: 6, Now: c.now})
	n.Set(2)
	if got := n.Render(); got != "samples [====> ]  66% 2/3 0s" {
		t.Fatalf("count bar %q", got)
	}
	u := New(io.Discard, Options{Label: "search", Now: c.now})
	u.Set(17)
	if got := u.Render(); got != "search 17 0s" {
		t.Fatalf("unknown total %q", got)
	}
}

func TestDelayHidesShortWork(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	var buf bytes.Buffer
	b := New(&buf, Options{Total: 10, Delay: time.Second, Now: c.now})
	b.Set(5)
	c.step(900 * time.Millisecond)
	b.Set(10)
	b.Finish()
	if buf.Len() != 0 {
		t.Fatalf("work shorter than the delay drew %q", buf.String())
	}
}

func TestNotATerminalIsSilent(t *testing.T) {
	var buf bytes.Buffer
	if b := ForTerminal(&buf, false, Options{Total: 1}); b != nil {
		t.Fatal("a buffer is not a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file is not a terminal")
	}
	if b := ForTerminal(os.Stderr, true, Options{Total: 1}); b != nil {
		t.Fatal("quiet must silence the bar")
	}
	// A nil bar accepts every call.
	var nb *Bar
	nb.Set(1)
	nb.Add(1)
	nb.SetTotal(3)
	nb.Finish()
	if nb.Func() != nil || nb.Render() != "" {
		t.Fatal("nil bar must be inert")
	}
}

func TestWriterReaderCount(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	b := New(io.Discard, Options{Total: 8, Now: c.now})
	w := &Writer{W: io.Discard, Bar: b}
	w.Write([]byte("abc"))
	r := &Reader{R: strings.NewReader("hello"), Bar: b}
	io.ReadAll(r)
	if got := b.Render(); !strings.Contains(got, "8/8") {
		t.Fatalf("counted %q", got)
	}
	f := b.Func()
	f(2, 16)
	if got := b.Render(); !strings.Contains(got, "2/16") {
		t.Fatalf("callback %q", got)
	}
}
