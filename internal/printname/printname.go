// Package printname makes names taken from a model safe to print: control
// characters (newlines, terminal escapes) and invalid UTF-8 are escaped,
// so a name stays on its line and cannot drive the terminal, and a huge
// name is cut in the middle so that one line stays readable.
package printname

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxBytes is the longest name printed whole; longer ones keep their start
// and end around an ellipsis.
const MaxBytes = 200

// Name returns s escaped and, when long, shortened.
func Name(s string) string { return Shorten(Escape(s), MaxBytes) }

// Escape writes control characters as \n, \t, \r or \xNN, and each byte of
// invalid UTF-8 as \xNN; a backslash stays as it is.
func Escape(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// Shorten cuts s to about max bytes, keeping its start and end (on rune
// boundaries) around "…" and saying how much was left out.
func Shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max*2/3, max/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return fmt.Sprintf("%s…(%d bytes)…%s", s[:head], start-head, s[start:])
}

// Runs shortens every run of more than max bytes without a space in a
// message (a name quoted in an error), leaving the rest as it is.
func Runs(msg string, max int) string {
	if len(msg) <= max {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		j := strings.IndexByte(msg[i:], ' ')
		if j < 0 {
			j = len(msg) - i
		}
		b.WriteString(Shorten(msg[i:i+j], max))
		i += j
		if i < len(msg) {
			b.WriteByte(' ')
			i++
		}
	}
	return b.String()
}
