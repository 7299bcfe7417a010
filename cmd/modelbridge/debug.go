package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/internal/printname"
)

// debugFlagName is the persistent flag that shows the detail behind an
// error: the chain of wrapped errors with their Go types and, for a
// recovered panic, the stack.
const debugFlagName = "debug"

func addDebugFlag(root *cobra.Command) {
	root.PersistentFlags().Bool(debugFlagName, false, "on error, also print the wrapped error chain with Go types and, for internal errors, the stack")
}

// printError reports err on stderr. Errors about a model are one line:
// control characters coming from names inside a file (newlines, terminal
// escapes) are shown escaped. Usage errors keep their hint lines.
func printError(root *cobra.Command, stderr io.Writer, err error, code int) {
	msg := err.Error()
	if code != exitUsage {
		// One line, and readable when a name in it is a megabyte long.
		msg = printname.Runs(escapeControl(msg), 2*printname.MaxBytes)
	}
	fmt.Fprintln(stderr, "modelbridge:", msg)
	if debug, _ := root.PersistentFlags().GetBool(debugFlagName); debug {
		writeErrorDetail(stderr, err)
	}
}

// escapeControl escapes control characters so that a message stays on one line
// and cannot drive the terminal.
func escapeControl(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// stackTracer is implemented by errors that carry a recovered panic's
// stack (internal/panicerr).
type stackTracer interface{ StackTrace() []byte }

// writeErrorDetail prints the chain behind err, one wrapped error per
// line with its Go type, then any panic stack found in it.
func writeErrorDetail(w io.Writer, err error) {
	fmt.Fprintln(w, "debug: error chain (outermost first):")
	var stacks [][]byte
	var walk func(e error, depth int)
	seen := 0
	walk = func(e error, depth int) {
		if e == nil || seen > 100 {
			return
		}
		seen++
		fmt.Fprintf(w, "debug: %s%T: %s\n", strings.Repeat("  ", depth), e, escapeControl(e.Error()))
		if st, ok := e.(stackTracer); ok {
			stacks = append(stacks, st.StackTrace())
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner, depth+1)
			}
		default:
			walk(errors.Unwrap(e), depth+1)
		}
	}
	walk(err, 0)
	for _, s := range stacks {
		fmt.Fprintf(w, "debug: stack of the recovered panic:\n%s", s)
	}
}
