// Package progress draws a one-line progress bar for long-running work
// (writing large tensors, verification samples, optimizer search). A bar is
// drawn only on an interactive terminal and only once the work has taken
// longer than a short delay, so quick commands and scripts see nothing. A nil
// *Bar is valid and does nothing, so callers never need to check.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Unit says how counts are printed.
type Unit uint8

const (
	// Count prints plain numbers ("3/10").
	Count Unit = iota
	// Bytes prints sizes ("1.5/12.0 MiB").
	Bytes
)

// DefaultDelay is how long work runs before its bar appears: shorter work
// finishes without any output, longer work shows it has started.
const DefaultDelay = 500 * time.Millisecond

// Options configure a Bar.
type Options struct {
	Label string
	Total int64 // <= 0 means unknown: a counter without percentage
	Unit  Unit
	// Delay before the first drawing; 0 draws immediately.
	Delay time.Duration
	// Width is the number of cells of the bar itself (default 30).
	Width int
	// Interval is the minimum time between redraws (default 100ms).
	Interval time.Duration
	// Now replaces time.Now in tests.
	Now func() time.Time
	// Tick redraws the bar every Interval from a goroutine until Finish,
	// so that a step reporting no progress (reading, compiling, one long
	// optimization) still shows its elapsed time once Delay has passed.
	Tick bool
}

// Bar is a progress bar writing to one writer. Methods are safe for
// concurrent use.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	opts     Options
	done     int64
	start    time.Time
	lastDraw time.Time
	drawn    bool // something is on the line and must be cleared at the end
	lastLen  int
	finished bool
	stop     chan struct{} // closed by Finish when ticking
}

// New returns a bar drawing to w whatever w is; use ForTerminal to draw only
// on a terminal.
func New(w io.Writer, opts Options) *Bar {
	if opts.Width <= 0 {
		opts.Width = 30
	}
	if opts.Interval <= 0 {
		opts.Interval = 100 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	b := &Bar{w: w, opts: opts, start: opts.Now()}
	if opts.Tick {
		b.stop = make(chan struct{})
		go b.tick()
	}
	return b
}

// tick redraws the bar until Finish.
func (b *Bar) tick() {
	t := time.NewTicker(b.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.mu.Lock()
			b.maybeDraw(false)
			b.mu.Unlock()
		}
	}
}

// ForTerminal returns a ticking bar on w when w is a terminal and quiet is
// false, with DefaultDelay unless opts sets one; otherwise nil (a silent
// bar).
func ForTerminal(w io.Writer, quiet bool, opts Options) *Bar {
	if quiet || !IsTerminal(w) {
		return nil
	}
	opts.Tick = true
	if opts.Delay == 0 {
		opts.Delay = DefaultDelay
	}
	return New(w, opts)
}

// IsTerminal reports whether w is an *os.File attached to a character
// device (a terminal), which is where an animated line makes sense. Pipes,
// files and in-memory buffers are not.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	return st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

// Set records absolute progress.
func (b *Bar) Set(done int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = done
	b.maybeDraw(false)
}

// Add records n more units of progress.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	b.maybeDraw(false)
}

// SetTotal changes the total, for work whose size is learned late.
func (b *Bar) SetTotal(total int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.opts.Total = total
	b.mu.Unlock()
}

// Func adapts the bar to a callback of the form used by writers and the
// optimizer: func(done, total int64). A nil bar gives a nil callback, so a
// callee can skip the work of reporting.
func (b *Bar) Func() func(done, total int64) {
	if b == nil {
		return nil
	}
	return func(done, total int64) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.done = done
		if total > 0 {
			b.opts.Total = total
		}
		b.maybeDraw(false)
	}
}

// Finish clears the bar's line so that the command's own output starts on a
// clean line. It is safe to call more than once.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.stop != nil {
		close(b.stop)
	}
	if b.drawn {
		fmt.Fprint(b.w, "\r"+strings.Repeat(" ", b.lastLen)+"\r")
	}
}

func (b *Bar) maybeDraw(force bool) {
	if b.finished {
		return
	}
	now := b.opts.Now()
	if now.Sub(b.start) < b.opts.Delay {
		return
	}
	if !force && b.drawn && now.Sub(b.lastDraw) < b.opts.Interval {
		return
	}
	line := b.render(now)
	pad := ""
	if n := b.lastLen - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprint(b.w, "\r"+line+pad)
	b.lastLen = len(line)
	b.lastDraw = now
	b.drawn = true
}

// Render returns the bar's current line without drawing it.
func (b *Bar) Render() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.render(b.opts.Now())
}

func (b *Bar) render(now time.Time) string {
	var sb strings.Builder
	if b.opts.Label != "" {
		sb.WriteString(b.opts.Label)
		sb.WriteByte(' ')
	}
	total, done := b.opts.Total, b.done
	elapsed := now.Sub(b.start).Round(100 * time.Millisecond)
	if total > 0 {
		done = min(max(done, 0), total)
		filled := int(int64(b.opts.Width) * done / total)
		sb.WriteByte('[')
		sb.WriteString(strings.Repeat("=", filled))
		if filled < b.opts.Width {
			sb.WriteByte('>')
			sb.WriteString(strings.Repeat(" ", b.opts.Width-filled-1))
		}
		sb.WriteString("] ")
		fmt.Fprintf(&sb, "%3d%% %s", done*100/total, b.amount(done, total))
	} else if done > 0 || !b.opts.Tick {
		sb.WriteString(b.amount(done, 0))
	} else {
		// A step without progress counts: a spinner shows it is alive.
		sb.WriteByte(`|/-\`[int(now.Sub(b.start)/b.opts.Interval)%4])
	}
	fmt.Fprintf(&sb, " %s", elapsed)
	return sb.String()
}

func (b *Bar) amount(done, total int64) string {
	if b.opts.Unit == Bytes {
		if total > 0 {
			return humanBytes(done) + "/" + humanBytes(total)
		}
		return humanBytes(done)
	}
	if total > 0 {
		return fmt.Sprintf("%d/%d", done, total)
	}
	return fmt.Sprint(done)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Writer counts bytes written through it into a bar.
type Writer struct {
	W   io.Writer
	Bar *Bar
}

func (w *Writer) Write(p []byte) (int, error) {
	n, err := w.W.Write(p)
	w.Bar.Add(int64(n))
	return n, err
}

// Reader counts bytes read through it into a bar.
type Reader struct {
	R   io.Reader
	Bar *Bar
}

func (r *Reader) Read(p []byte) (int, error) {
	n, err := r.R.Read(p)
	r.Bar.Add(int64(n))
	return n, err
}
