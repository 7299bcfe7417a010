package interp

import (
	"errors"
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// MaxMemory bounds the memory one Program allocates: converted inputs,
// every intermediate and output buffer, scratch such as im2col columns,
// and pre-packed weights. Zero means the default, DefaultMaxMemory().
// Exceeding it is an error naming the node (`--max-memory`).
var MaxMemory int64

// DefaultMaxMemory is half the machine's physical memory (8 GiB when it
// cannot be read): enough for any model the machine can run, and an error
// instead of the out-of-memory killer for a small hostile one.
func DefaultMaxMemory() int64 {
	if n := physicalMemory(); n > 0 {
		return n / 2
	}
	return 8 << 30
}

// MemoryLimit is the budget in force: MaxMemory, or the default.
func MemoryLimit() int64 { return memoryLimit() }

func memoryLimit() int64 {
	if MaxMemory > 0 {
		return MaxMemory
	}
	return DefaultMaxMemory()
}

// memBudget counts the bytes a Program has allocated. Buffers return to
// the Program's pool and are reused, never freed, so the count is what the
// Program holds.
type memBudget struct {
	limit, used int64
}

func newMemBudget(limit int64) *memBudget { return &memBudget{limit: limit} }

// ErrMemory is wrapped by every error about the memory budget.
var ErrMemory = errors.New("memory budget exceeded")

// memoryError is raised (as a panic, caught by runStep, which names the
// node) when an allocation would exceed the budget.
type memoryError struct {
	what        string
	bytes, used int64
	limit       int64
}

func (e *memoryError) Error() string {
	return fmt.Sprintf("%s needs %s more, beyond the interpreter's memory limit of %s (%s already in use); raise --max-memory if the machine has the memory, or check the input shapes and the op's parameters",
		e.what, humanSize(e.bytes), humanSize(e.limit), humanSize(e.used))
}

func (e *memoryError) Unwrap() error { return ErrMemory }

// check returns an error when n more bytes do not fit.
func (b *memBudget) check(what string, n int64) error {
	if b == nil {
		return nil
	}
	if n < 0 || n > b.limit-b.used {
		return &memoryError{what: what, bytes: n, used: b.used, limit: b.limit}
	}
	return nil
}

// charge counts n bytes about to be allocated, panicking with a
// *memoryError when they do not fit (kernels call it through the pool; the
// panic becomes an error naming the node).
func (b *memBudget) charge(what string, n int64) {
	if err := b.check(what, n); err != nil {
		panic(err)
	}
	if b != nil {
		b.used += n
	}
}

// tryCharge is charge returning the error, for allocations outside a step
// (inputs and outputs).
func (b *memBudget) tryCharge(what string, n int64) error {
	if err := b.check(what, n); err != nil {
		return err
	}
	if b != nil {
		b.used += n
	}
	return nil
}

// roomToSpare reports whether n more bytes leave at least half the
// budget free: the bound on what optional copies (packed weights) take.
func (b *memBudget) roomToSpare(n int64) bool {
	return b == nil || b.used+n <= b.limit/2
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// SetMemoryLimit replaces the program's memory limit (for callers that
// want less than MaxMemory, such as constant folding); memory already in
// use stays counted.
func (p *Program) SetMemoryLimit(n int64) { p.pool.budget.limit = n }

// MemoryUsed is the memory the program has allocated so far.
func (p *Program) MemoryUsed() int64 { return p.pool.budget.used }

// inputBytes is what converting an input for the interpreter allocates:
// float32 for floats, int64 for the rest (nothing more is counted when the
// data is used in place, which fromCanon decides; the bound is safe).
func inputBytes(ct *canon.Tensor) int64 {
	n := canon.NumElements(ct.Shape)
	if n < 0 {
		return 0
	}
	switch ct.DType {
	case canon.Float32, canon.Float16, canon.BFloat16:
		return n * 4 // floats narrower than float64 are held as float32
	case canon.String:
		return stringBytes(ct.Strings)
	}
	return n * 8 // float64 and every integer are held in 8 bytes
}

// newRun stops counting the previous Run's inputs and outputs.
func (p *pool) newRun() {
	p.budget.used -= p.outBytes
	p.outBytes = 0
}
