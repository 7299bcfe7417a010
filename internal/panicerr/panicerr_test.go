package panicerr

import (
	"errors"
	"strings"
	"testing"
)

func mayPanic(panics bool) (err error) {
	defer Recover("reading x.onnx", &err)
	if panics {
		var m map[string]int
		m["a"] = 1 // a nil-map write: a runtime error
	}
	return errors.New("ordinary")
}

func TestRecover(t *testing.T) {
	if err := mayPanic(false); err == nil || err.Error() != "ordinary" {
		t.Fatalf("without a panic the error must pass through, got %v", err)
	}
	err := mayPanic(true)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("want a *Error, got %T %v", err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "reading x.onnx: internal error: ") || strings.Contains(msg, "\n") {
		t.Errorf("message %q", msg)
	}
	if !strings.Contains(string(pe.StackTrace()), "mayPanic") {
		t.Errorf("the stack does not show where the panic happened")
	}
	var re interface{ RuntimeError() }
	if !errors.As(err, &re) {
		t.Errorf("the runtime error is not reachable through Unwrap")
	}
}
