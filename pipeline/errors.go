package pipeline

import "fmt"

// UsageError is a request that cannot be carried out as asked (an option
// that does not apply, an output that would replace an input), as opposed
// to a model that fails. Commands exit with their usage status for it.
type UsageError struct {
	Err error
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef formats a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Step names a step of Plan.Apply.
type Step string

const (
	StepBind         Step = "bind"
	StepOptimize     Step = "optimize"
	StepFloat16      Step = "fp16"
	StepKernelLayout Step = "kernel-layout"
)

// StepError is the failure of one step of Plan.Apply; nothing was
// written. Err is the step's own error.
type StepError struct {
	Step Step
	Err  error
}

func (e *StepError) Error() string { return string(e.Step) + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }
