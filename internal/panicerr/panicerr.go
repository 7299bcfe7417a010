// Package panicerr turns a recovered panic into an error whose message is
// one line (where it happened and the panic value) and which keeps the
// goroutine's stack for `modelbridge --debug`.
package panicerr

import (
	"fmt"
	"runtime/debug"
)

// Error is a recovered panic.
type Error struct {
	// Where names the component (and node or file) that panicked.
	Where string
	// Value is what was passed to panic.
	Value any
	stack []byte
}

// New records a panic value recovered in where, with the current stack;
// call it from the deferred function that recovered.
func New(where string, value any) *Error {
	return &Error{Where: where, Value: value, stack: debug.Stack()}
}

func (e *Error) Error() string {
	if IsFault(e.Value) {
		msg := "a mapped input file changed while it was read (truncated or overwritten by another program?); try again once the file is complete"
		if e.Where != "" {
			msg = e.Where + ": " + msg
		}
		return msg
	}
	msg := fmt.Sprintf("internal error: %v (please report it with the model; run with --debug for the stack)", e.Value)
	if e.Where != "" {
		msg = e.Where + ": " + msg
	}
	return msg
}

// Unwrap exposes a panic value that is itself an error (a runtime error,
// for instance).
func (e *Error) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// StackTrace is the stack of the goroutine at the time of the panic.
func (e *Error) StackTrace() []byte { return e.stack }

// Recover, deferred directly by a function with a named error result,
// turns a panic in that function into *err (a *Error naming where), so
// that hostile input gives the caller an error instead of a crash. The
// function's other results are then meaningless, as with any error.
func Recover(where string, err *error) {
	if r := recover(); r != nil {
		*err = New(where, r)
	}
}

// IsFault reports whether a recovered panic value is a memory fault turned
// into a panic by debug.SetPanicOnFault: reading a mapped file that was
// truncated under us (SIGBUS), which is no bug of ours.
func IsFault(v any) bool {
	f, ok := v.(interface{ Addr() uintptr })
	_, isErr := v.(error)
	return ok && isErr && f != nil
}

// Guard runs f with faults on mapped memory turned into panics (see
// debug.SetPanicOnFault) and returns such a fault as an *Error naming
// where; other panics go on. Each goroutine that touches mapped input
// needs its own Guard.
func Guard(where string, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !IsFault(r) {
				panic(r)
			}
			err = New(where, r)
		}
	}()
	return f()
}
