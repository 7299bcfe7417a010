// Package readcheck holds what the readers' fuzz targets and the
// damaged-files tests (robust/) share: fixture seeds and the checks a
// successful read must pass. It is imported by tests only.
package readcheck

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/databudget"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// SlackBytes and MaxBytesPerInputByte are the readers' own data budget
// (internal/databudget), which a successful read must stay within.
const (
	SlackBytes           = databudget.SlackBytes
	MaxBytesPerInputByte = databudget.PerInputByte
)

// Seeds returns the contents of the shared fixture files matching the glob
// patterns (relative to the fixtures folder) that are at most maxSize
// bytes, sorted by path. It returns nil when the fixtures are absent, so a
// fuzz target still runs from its built-in seeds on a fresh clone.
func Seeds(maxSize int64, patterns ...string) [][]byte {
	dir := filepath.Join(testfix.SharedDir(), "fixtures")
	var paths []string
	for _, p := range patterns {
		m, _ := filepath.Glob(filepath.Join(dir, p))
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	var out [][]byte
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || st.IsDir() || st.Size() > maxSize {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// TensorBytes is the memory held by g's initializers and constant ops:
// tensors that share bytes (aliases of one weight, views of one storage,
// external-data entries over one range) count those bytes once.
func TensorBytes(g *canon.Graph) int64 {
	type span struct{ start, end uintptr }
	var spans []span
	add := func(b []byte) {
		if len(b) > 0 {
			p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			spans = append(spans, span{p, p + uintptr(len(b))})
		}
	}
	for _, t := range g.Initializers {
		add(t.Data)
	}
	for _, nd := range g.Nodes {
		if c, ok := nd.Op.(*canon.Constant); ok && c.Value != nil {
			add(c.Value.Data)
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var n int64
	var end uintptr
	for _, s := range spans {
		if s.start < end {
			if s.end <= end {
				continue
			}
			s.start = end
		}
		n += int64(s.end - s.start)
		end = s.end
	}
	return n
}

// CheckGraph runs what a caller does after a successful read (validation
// and shape inference; their errors are fine, panics are not) and fails t
// when the graph holds more tensor data than inputBytes of file can
// justify.
func CheckGraph(t testing.TB, g *canon.Graph, inputBytes int) {
	t.Helper()
	CheckGraphLimit(t, g, inputBytes, int64(inputBytes)*MaxBytesPerInputByte+SlackBytes)
}

// CheckGraphLimit is CheckGraph with an explicit limit on tensor bytes, for
// formats that legitimately compute data (densified sparse arrays).
func CheckGraphLimit(t testing.TB, g *canon.Graph, inputBytes int, limit int64) {
	t.Helper()
	_ = g.Validate()
	_ = g.Infer()
	if got := TensorBytes(g); got > limit {
		t.Fatalf("a %d-byte input produced %d bytes of tensors (limit %d)", inputBytes, got, limit)
	}
}

// CheckError fails t when err reports a panic the reader recovered from.
// (Names from the file may hold newlines; the CLI prints every error on one
// line, which the damaged-files test checks.)
func CheckError(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if strings.Contains(msg, "internal error") || strings.Contains(msg, "panic") {
		var pe *panicerr.Error
		if errors.As(err, &pe) {
			t.Fatalf("reader failed internally: %v\n%s", err, pe.StackTrace())
		}
		t.Fatalf("reader failed internally: %v", err)
	}
}
